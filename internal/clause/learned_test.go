package clause

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

func TestLearnedKeywords(t *testing.T) {
	body := "1. Party A is responsible for the construction and operation of the system and bears its cost.\n" +
		"2. Party B shall provide the land and the utilities the project needs, at no charge to Party A.\n\n"
	for _, c := range []struct {
		name, text string
		want       []string // top-level article labels
	}{
		{"word numbers", "COOPERATION AGREEMENT\n\nItem One, Investment Construction Projects\n" + body + "Item Two, Operation of the Project\n" + body +
			"Item Three Cost and Operation Target\n" + body + "Term Four Force Majeure\n" + body + "Term Five Settlement of Disputes\n" + body + "Term Six Agreement and Others\n" + body,
			[]string{"Item One", "Item Two", "Item Three", "Term Four", "Term Five", "Term Six"}},
		{"not rising", "Intro\n\nItem Two, Alpha Terms\n" + body + "Item One, Beta Terms\n" + body + "Item Three, Gamma Terms\n" + body, nil},
		{"page headers", "Intro\n\nPage 1\n" + body + "Page 2\n" + body + "Page 3\n" + body, nil},
		{"twice is not enough", "Intro\n\nRule One, Alpha Terms\n" + body + "Rule Two, Beta Terms\n" + body, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := Parse(&document.Document{Text: c.text})
			var got []string
			for _, id := range tr.Nodes[0].Children {
				if n := tr.Nodes[id]; n.Kind == KindArticle {
					got = append(got, n.Label)
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("articles %q, want %q", got, c.want)
			}
			if err := Check(&document.Document{Text: c.text}, tr); err != nil {
				t.Error(err)
			}
		})
	}
}
