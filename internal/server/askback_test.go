package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/report"
)

// namedContract is a small agreement between two named companies.
func namedContract(title, party, other string) string {
	return title + "\n\nThis " + title + " is made by and between " + party + ", a Delaware corporation (\"" + strings.Fields(party)[0] + "\"), and " + other + " (\"Customer\").\n\n" +
		"1. Term\n1.1 This Agreement continues for three years.\n\n2. Governing Law\n2.1 This Agreement is governed by the laws of the State of New York.\n\n3. Assignment\n3.1 Neither party may assign this Agreement without consent.\n"
}

// TestAskBack: an ask with ask_back whose question names a company party to
// two contracts pauses with the question and the two contracts as choices
// (in the stream and in GET …/asks/{id}), resumes with the answer posted,
// and answers from the contract chosen.
func TestAskBack(t *testing.T) {
	e := newEnv(t, nil)
	e.ingest("deal", e.admin,
		file{"zenith-supply.txt", namedContract("SUPPLY AGREEMENT", "Zenith Widgets, Inc.", "Borealis Foods LLC")},
		file{"zenith-license.txt", namedContract("LICENSE AGREEMENT", "Zenith Widgets, Inc.", "Orion Data Corp.")},
		file{"other.txt", namedContract("SERVICES AGREEMENT", "Quarry Partners, Inc.", "Vega Capital LLC")},
	)
	body, _ := json.Marshal(map[string]any{"question": "Can we assign our contract with Zenith?", "ask_back": true})
	req, _ := http.NewRequest("POST", e.ts.URL+"/api/v1/collections/deal/ask", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var event string
	var askID string
	var rep report.Report
	asked := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := []byte(strings.TrimPrefix(line, "data: "))
			switch event {
			case "started":
				askID = decode[map[string]string](t, data)["ask_id"]
			case "question":
				q := decode[askQuestion](t, data)
				if q.AskID != askID || !strings.Contains(q.Question, "Zenith") || len(q.Choices) != 3 {
					t.Fatalf("question %+v", q)
				}
				code, state := e.json("GET", "/api/v1/collections/deal/asks/"+askID, e.admin, nil)
				if code != 200 || !strings.Contains(string(state), `"waiting"`) || !strings.Contains(string(state), "zenith-license.txt") {
					t.Errorf("ask state %d %s", code, state)
				}
				// Another collection's key sees no such ask.
				if code, _ := e.json("GET", "/api/v1/collections/deal/asks/"+askID, e.key("other"), nil); code != 404 {
					t.Errorf("another collection's key: %d", code)
				}
				var chosen string
				for _, c := range q.Choices {
					if strings.Contains(c.Label, "zenith-license.txt") {
						chosen = c.ID
					}
				}
				code, ans := e.json("POST", "/api/v1/collections/deal/asks/"+askID+"/answer", e.admin, map[string]string{"answer": chosen})
				if code != 200 {
					t.Fatalf("answer %d %s", code, ans)
				}
				asked = true
			case "report":
				rep = decode[struct{ Report report.Report }](t, data).Report
			case "error":
				t.Fatalf("error event %s", data)
			}
		}
	}
	if !asked || askID == "" {
		t.Fatal("the ask never asked back")
	}
	if len(rep.Documents) != 1 || rep.Documents[0].Name != "zenith-license.txt" {
		t.Errorf("answered from %+v, want the contract chosen", rep.Documents)
	}
	if code, _ := e.json("POST", "/api/v1/collections/deal/asks/"+askID+"/answer", e.admin, map[string]string{"answer": "1"}); code != 404 {
		t.Errorf("answering a finished ask: %d, want 404", code)
	}

	// Without ask_back the ask never waits: every candidate is searched and
	// the report lists both (a question about several contracts).
	code, raw := e.json("POST", "/api/v1/collections/deal/ask", e.admin, map[string]any{"question": "Can we assign our contract with Zenith?"})
	if code != 200 {
		t.Fatalf("ask %d", code)
	}
	for _, ev := range parseSSE(t, string(raw)) {
		if ev.Event == "question" {
			t.Errorf("an ask without ask_back asked back")
		}
		if ev.Event == "report" {
			r := decode[struct{ Report report.Report }](t, []byte(ev.Data)).Report
			if r.DealRoom == nil || r.DealRoom.Checked != 2 {
				t.Errorf("ambiguous name without ask_back: deal room %+v", r.DealRoom)
			}
		}
	}
}
