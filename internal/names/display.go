package names

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DisplayRules numbers the rules of Display. A display kept with a
// collection's index (search.Index.WriteDisplays) is used only while the
// rules it was made by are these; change the number whenever Display gives
// another text for some names (TestDisplayRulesCorpus fails until it is).
const DisplayRules = 1

// Display is how every face shows a contract: its title, its parties and
// its date, as a lawyer names it — "Distributor Agreement — Airspan
// Networks / GLS LLC, 31 March 2000". It is built only from what the
// document was learnt to be called by (Learn): the title (or, without one,
// the kind of agreement, or the file name), the parties' names without
// their legal form (up to three, then how many more), and the date written
// in words. A party is listed once: two names that differ only in their
// legal form ("Northern Telecom Limited", "Northern Telecom Inc.") read
// as one to a person. The file path stays what identifies the document; Display is
// what a person reads.
func Display(n Names, docName string) string {
	title := displayTitle(n, docName)
	switch n.Correspondence {
	case "e-mail":
		title = "E-mail: " + title
	case "letter":
		title = "Letter: " + title
	case "index":
		title = "Index: " + title
	}
	var parties []string
	seen := map[string]bool{}
	for _, p := range n.Parties {
		name := p.Core
		if name == "" || utf8.RuneCountInString(name) < 3 {
			name = p.Name
		}
		name = typedName(name)
		k := Key(name)
		if k == "" || k == "parties" || k == "party" {
			continue
		}
		pk := partyKey(name)
		if seen[pk] || len(n.Parties) == 1 && strings.Contains(Key(title), k) {
			continue
		}
		seen[pk] = true
		parties = append(parties, name)
	}
	if len(parties) > 3 {
		parties = append(parties[:2], strconv.Itoa(len(parties)-2)+" others")
	}
	out := title
	if len(parties) > 0 {
		out += " — " + strings.Join(parties, " / ")
	}
	if d := DisplayDate(n.Date); d != "" {
		out += ", " + d
	} else if n.Year > 0 {
		out += ", " + strconv.Itoa(n.Year)
	}
	return out
}

// partyKey is a party's name as Display compares names: Key without the
// legal-form words that end it, written short ("Inc.", "LLC") or in full
// ("Limited", "Corporation").
func partyKey(name string) string {
	f := strings.Fields(Key(core(name)))
	for len(f) > 1 && legalFormWords[f[len(f)-1]] {
		f = f[:len(f)-1]
	}
	return strings.Join(f, " ")
}

// legalFormWords are the words of legal forms a name may end with (Key
// form).
var legalFormWords = map[string]bool{"limited": true, "ltd": true, "corporation": true, "corp": true, "incorporated": true,
	"inc": true, "company": true, "co": true, "llc": true, "plc": true, "lp": true, "llp": true, "gmbh": true, "ag": true, "sa": true}

// FromList rebuilds, from a document's names as All lists them (what the
// search index keeps), the parts of Names that Display reads: the title,
// type, date, year and the parties' full names and cores.
func FromList(list []Name, docName string) Names {
	var n Names
	n.File, n.Folder = fileNames(docName)
	for _, nm := range list {
		switch nm.Kind {
		case KindParty:
			for len(n.Parties) <= nm.Party && nm.Party < 64 {
				n.Parties = append(n.Parties, Party{})
			}
			if nm.Party >= 0 && nm.Party < len(n.Parties) {
				n.Parties[nm.Party].Name = nm.Text
			}
		case KindForm:
			if nm.Party >= 0 && nm.Party < len(n.Parties) {
				n.Parties[nm.Party].Core = nm.Text
			}
		case KindTitle:
			n.Title = nm.Text
		case KindType:
			if n.Type == "" {
				n.Type = nm.Text // the longest comes first (typeSuffixes)
			}
		case KindDate:
			n.Date = nm.Text
		case KindYear:
			n.Year, _ = strconv.Atoi(nm.Text)
		case KindCorrespondence:
			n.Correspondence = nm.Text
		}
	}
	kept := n.Parties[:0]
	for _, p := range n.Parties {
		if p.Name != "" {
			kept = append(kept, p)
		}
	}
	n.Parties = kept
	if n.Title == "" && n.Type != "" {
		n.Title = n.Type // All gives a title that only says the type as the type
	}
	return n
}

// displayTitle is the title a contract is shown by: its own, in title case
// when written in capitals; else its kind ("Supply Agreement"); else its
// file name without the extension.
func displayTitle(n Names, docName string) string {
	t := oneSpaced(n.Title)
	if i := strings.IndexAny(t, "\"“("); i > 0 {
		t = strings.TrimRight(t[:i], " ,;:") // License Agreement ("Agreement")
	}
	t = strings.Trim(t, "\"“” ")
	t = titleProper(t)
	if !namesAKind(t) && n.Correspondence == "" {
		t = "" // a banner or a sentence before the title ("Confidential treatment has been requested…")
	}
	if t == "" && n.Type != "" {
		t = n.Type
	}
	if t == "" {
		base := path.Base(strings.ReplaceAll(docName, "\\", "/"))
		if i := strings.LastIndexByte(base, '.'); i > 0 && len(base)-i <= 6 {
			base = base[:i]
		}
		if base == "." || base == "/" {
			return docName
		}
		if k := fileKind(base); k != "" {
			return titleCase(k)
		}
		return base
	}
	if utf8.RuneCountInString(t) > 80 {
		r := []rune(t)
		cut := 80
		for cut > 40 && r[cut] != ' ' {
			cut--
		}
		t = strings.TrimRight(string(r[:cut]), " ,;:") + "…"
	}
	return titleCase(t)
}

// titleProper is the title without what a title line runs on into: a
// reference number or a date after it ("SUPPLY CONTRACT Contract No. 7",
// "Reseller Agreement Dated September 14"), and, where the title is the
// line's run of words in capitals naming a kind of document, the words in
// mixed case around it ("Execution Copy STRATEGIC ALLIANCE AGREEMENT",
// "FORM OF FRANCHISE AGREEMENT Location of the Premises").
func titleProper(t string) string {
	f := strings.Fields(t)
	// The run of capitals that names a kind.
	best, bl := -1, 0
	for i := 0; i < len(f); {
		if hasLower(f[i]) || letterCount(f[i]) == 0 {
			i++
			continue
		}
		j := i
		for j < len(f) && !hasLower(f[j]) {
			j++
		}
		if j-i >= 2 && j-i > bl && namesAKind(strings.Join(f[i:j], " ")) {
			best, bl = i, j-i
		}
		i = j
	}
	if best >= 0 && bl < len(f) {
		f = f[best : best+bl]
	}
	// A reference number, a date or the parties after it.
	for i := 1; i < len(f); i++ {
		w := strings.ToLower(strings.Trim(f[i], ".,:;()"))
		next := ""
		if i+1 < len(f) {
			next = strings.ToLower(strings.Trim(f[i+1], ".,:;()"))
		}
		ref := next == "no" || next == "number" || next == "identification"
		if w == "dated" || w == "this" || w == "between" || (w == "no" || w == "number" || w == "identification") && i >= 2 ||
			(w == "contract" || w == "agreement") && ref && i >= 2 {
			f = f[:i]
			break
		}
	}
	// A date before it ("May 04, 2017 Strategic Alliance Agreement"),
	// joining words after it ("… Agreement by and").
	noLetter := func(w string) bool { return strings.IndexFunc(w, unicode.IsLetter) < 0 }
	for len(f) > 1 && (noLetter(f[0]) || len(f) > 2 && slices.Contains(months, strings.ToLower(f[0])) && noLetter(f[1])) {
		f = f[1:]
	}
	for len(f) > 1 && (isJoinerTitle(strings.ToLower(strings.Trim(f[len(f)-1], ",;:"))) || strings.EqualFold(f[len(f)-1], "by")) {
		f = f[:len(f)-1]
	}
	// A draft's or a copy's banner before it ("Execution Version
	// Agreement and Plan of Merger").
	if len(f) > 2 && (strings.EqualFold(f[0], "execution") || strings.EqualFold(f[0], "conformed")) &&
		(strings.EqualFold(f[1], "version") || strings.EqualFold(f[1], "copy")) {
		f = f[2:]
	}
	// "This Agreement" names no title.
	if len(f) > 0 && (strings.EqualFold(f[0], "this") || strings.EqualFold(f[0], "the")) {
		f = f[1:]
	}
	if len(f) < 2 {
		return ""
	}
	return strings.TrimRight(strings.Join(f, " "), " ,;:-–(")
}

// fileKind is the words of a file name that name a kind of document, with
// the capitalized words before them ("…_EX-10.31-DISTRIBUTOR AGREEMENT" →
// "DISTRIBUTOR AGREEMENT"), or "".
func fileKind(base string) string {
	f := strings.FieldsFunc(base, func(r rune) bool { return r == '_' || r == '-' || r == '(' || r == ')' || unicode.IsSpace(r) })
	end := -1
	for i := len(f) - 1; i >= 0; i-- {
		if isTypeWord(f[i]) {
			end = i
			break
		}
	}
	if end < 0 {
		return ""
	}
	start := end
	for start > 0 && nameWord(f[start-1]) && letterCount(f[start-1]) == utf8.RuneCountInString(f[start-1]) && end-start < 5 {
		start--
	}
	return strings.Join(f[start:end+1], " ")
}

// namesAKind reports whether a title holds a word titles use for a kind
// of document ("agreement", "amendment", "lease").
func namesAKind(t string) bool {
	lower := 0
	for _, w := range strings.Fields(t) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsLower(r) && !smallWord[w] {
			lower++
		}
	}
	if lower >= 3 || strings.HasSuffix(t, ":") {
		return false // a sentence, not a title
	}
	k := " " + Key(t) + " "
	for _, w := range TypeWords {
		if strings.Contains(k, " "+w+" ") || strings.Contains(k, " "+w+"s ") {
			return true
		}
	}
	return false
}

// titleCase writes a title given in capitals or in lower case with a
// capital to each word but the small joining ones ("MASTER SUPPLY
// AGREEMENT" → "Master Supply Agreement"); a title already mixed is kept.
func titleCase(t string) string {
	if t != strings.ToUpper(t) && t != strings.ToLower(t) {
		return t
	}
	w := strings.Fields(strings.ToLower(t))
	for i, x := range w {
		if i > 0 && smallWord[x] {
			continue
		}
		r := []rune(x)
		r[0] = unicode.ToUpper(r[0])
		w[i] = string(r)
	}
	return strings.Join(w, " ")
}

var smallWord = map[string]bool{"of": true, "and": true, "the": true, "for": true, "to": true, "in": true, "on": true, "a": true, "an": true, "or": true, "by": true, "with": true}

// typedName writes a party name given in capitals as people write it
// ("AIRSPAN NETWORKS" → "Airspan Networks"); short words in capitals
// ("GLS", "LLC") stay so.
func typedName(s string) string {
	s = oneSpaced(s)
	if s != strings.ToUpper(s) {
		return s
	}
	w := strings.Fields(s)
	for i, x := range w {
		if utf8.RuneCountInString(strings.Trim(x, ".,")) > 3 {
			r := []rune(strings.ToLower(x))
			r[0] = unicode.ToUpper(r[0])
			w[i] = string(r)
		}
	}
	return strings.Join(w, " ")
}

// DisplayDate writes a date as written in a preamble ("the 31st day of
// March, 2000", "March 31, 2000", "2000-03-31") as "31 March 2000"; a
// month and year as "March 2000"; "" when it holds no year.
func DisplayDate(d string) string {
	if d == "" {
		return ""
	}
	var day, year int
	month := ""
	nums := []int{}
	for _, f := range strings.FieldsFunc(d, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		lf := strings.ToLower(f)
		if month == "" {
			for _, m := range months {
				if len(lf) >= 3 && strings.HasPrefix(m, lf) || lf == m {
					month = strings.ToUpper(m[:1]) + m[1:]
				}
			}
			if month != "" {
				continue
			}
		}
		digits := strings.TrimRight(lf, "stndrh") // 31st, 2nd, 3rd, 4th
		if v, err := strconv.Atoi(digits); err == nil {
			nums = append(nums, v)
		}
	}
	for _, v := range nums {
		switch {
		case v >= 1900 && v <= 2100:
			year = v
		case v >= 1 && v <= 31 && day == 0:
			day = v
		}
	}
	if year == 0 {
		return ""
	}
	if month == "" && len(nums) == 3 {
		// numeric: 2000-03-31, 03/31/2000 or 31.03.2000
		a, b := nums[0], nums[1]
		m := 0
		switch {
		case a >= 1900:
			m, day = b, nums[2]
		case a > 12:
			day, m = a, b
		default:
			m, day = a, b
		}
		if m >= 1 && m <= 12 {
			month = strings.ToUpper(months[m-1][:1]) + months[m-1][1:]
		}
	}
	switch {
	case month != "" && day > 0:
		return strconv.Itoa(day) + " " + month + " " + strconv.Itoa(year)
	case month != "":
		return month + " " + strconv.Itoa(year)
	}
	return strconv.Itoa(year)
}

// Correspondence says whether a document is correspondence rather than a
// contract, and which: "e-mail" (the body of an e-mail: a cover note, its
// attachments are documents of their own), "letter" (a short letter —
// "Dear …" at its start — that binds no one: no "letter agreement", nothing
// "agreed and accepted"), or "index" (a list of a data room's documents: a
// title or file name saying "index" and no preamble naming parties);
// "" for anything else, contracts included. mail says the document is an
// e-mail's body; parties whether a preamble named parties.
func Correspondence(text, docName string, mail, parties bool) string {
	if mail {
		return "e-mail"
	}
	head := strings.ToLower(headOf(text, 1500))
	lower := strings.ToLower(headOf(text, 20000))
	binding := false
	for _, w := range []string{"letter agreement", "agreed and accepted", "accepted and agreed", "acknowledged and agreed", "agreed to and accepted", "hereby agree", "in witness whereof"} {
		binding = binding || strings.Contains(lower, w)
	}
	if binding {
		return ""
	}
	salutation := strings.HasPrefix(strings.TrimSpace(head), "dear ") || strings.Contains(head, "\ndear ")
	if salutation && len(text) < 12000 && !parties {
		return "letter"
	}
	_, file := path.Split(strings.ReplaceAll(docName, "\\", "/"))
	firstLine, _, _ := strings.Cut(strings.TrimSpace(head), "\n")
	if !parties && (hasWord(strings.ToLower(wordsOf(file)), "index") || hasWord(firstLine, "index")) {
		return "index"
	}
	return ""
}

// hasWord reports whether s (lower case) holds w as a word.
func hasWord(s, w string) bool {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if f == w {
			return true
		}
	}
	return false
}
