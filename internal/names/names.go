// Package names learns, from a contract itself, the names a person would
// call it by: each party's full name as the preamble gives it ("Bravatek
// Solutions, Inc."), the short name it is defined by ("Bravatek"), the forms
// people shorten it to (without "Inc.", its first words, its initials), the
// title and kind of agreement ("the supply agreement"), its date and year,
// and the file name and folder it was filed under.
//
// Everything is read from the document: the preamble ("by and between A
// ("A") and B ("B")"), "Party A:" lines, the signature block and the title.
// No list of company names is consulted, so a contract between companies
// nobody has heard of is named as well as one between famous ones. The only
// word lists are grammatical: the words titles use for kinds of documents,
// month names, and the function words that join a name's parts.
//
// Correctness argument. A learnt name is only useful if it names this
// document and not a role every contract has: a defined term such as
// ("Company") or ("Licensee") is kept as a role, never as a name, unless it
// is drawn from the party's own name — its words, a prefix of them, or their
// initials (Derived). A party found in the preamble must carry a definition,
// a legal-form word ("Inc.", "LLC": a capitalized abbreviation) or appear
// again in the signature block, so an address ("New York and Boston") is not
// taken for a party. What remains can still name several documents (one
// company's many contracts): deciding between them is the router's job
// (search), which counts how many documents share a name.
package names

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind says where a name came from and so how much it says.
type Kind uint8

// Kinds of names. A party name, short name, form, acronym, title, file name
// or folder can name a contract on its own; a type, date or year only narrows
// a name given with it ("the 2019 Acme supply agreement").
const (
	KindParty   Kind = iota + 1 // a party's full name: "Bravatek Solutions, Inc."
	KindShort                   // the short name a party is defined by: ("Bravatek")
	KindForm                    // a party's name without its legal form: "Bravatek Solutions"
	KindLead                    // a party name's leading words: "Bravatek"
	KindAcronym                 // a party name's initials: "PNC"
	KindTitle                   // the document's title: "Master Supply Agreement"
	KindType                    // the kind of agreement: "supply agreement"
	KindDate                    // the date it was made: "31 October 2019"
	KindYear                    // its year: "2019"
	KindFile                    // the file name without extension
	KindFolder                  // a folder the file was filed in
	KindRole                    // a term a party is defined by that names its role ("Licensee"): never a name of the contract
	// KindCorrespondence is what kind of correspondence the document is
	// ("e-mail", "letter", "index"; Names.Correspondence): never a name,
	// kept with the names so the faces can say it.
	KindCorrespondence
	numKinds
)

var kindNames = [numKinds]string{"", "party", "short name", "form", "leading words", "acronym", "title", "type", "date", "year", "file name", "folder", "role", "correspondence"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "kind?"
}

// MarshalText writes a kind as its name ("short name"), for JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	*k = ParseKind(string(b))
	if *k == 0 {
		return fmt.Errorf("names: unknown kind %q", b)
	}
	return nil
}

// ParseKind is the inverse of Kind.String; 0 for an unknown name.
func ParseKind(s string) Kind {
	for k, n := range kindNames {
		if n == s && k > 0 {
			return Kind(k)
		}
	}
	return 0
}

// Names reports whether a name of this kind can name a contract on its own
// (a party, title, file or folder), rather than only narrow one (type,
// date, year).
func (k Kind) Names() bool {
	switch k {
	case KindType, KindDate, KindYear, KindRole, KindCorrespondence:
		return false
	}
	return k > 0 && k < numKinds
}

// Narrows reports whether a name of this kind narrows a name given with it
// (type, date, year).
func (k Kind) Narrows() bool { return k == KindType || k == KindDate || k == KindYear }

// Party is one party of a contract as the document names it.
type Party struct {
	// Name is the full name as written ("Fonterra (USA) Inc.").
	Name string `json:"name"`
	// Short holds the short names the party is defined by that are drawn
	// from its name ("Fonterra", "PNC").
	Short []string `json:"short,omitempty"`
	// Roles holds the defined terms that name the party's role rather than
	// the party ("Supplier", "Licensee"): never used to name the contract.
	Roles []string `json:"roles,omitempty"`
	// Core is the name without its legal form ("Fonterra"), when that
	// differs from Name.
	Core string `json:"core,omitempty"`
	// Lead are the name's leading words people shorten it to ("Birch
	// First", "Birch").
	Lead []string `json:"lead,omitempty"`
	// Acronym is the initials of the name, when it has three or more
	// capitalized words' worth.
	Acronym string `json:"acronym,omitempty"`
	// Source says where the party was read: "preamble", "party line",
	// "signature", possibly joined with "+signature" when the signature
	// block names it too.
	Source string `json:"source"`
}

// Names is what a document is called by.
type Names struct {
	Title string `json:"title,omitempty"`
	Type  string `json:"type,omitempty"` // lower case: "master supply agreement"
	Date  string `json:"date,omitempty"` // as written in the preamble
	Year  int    `json:"year,omitempty"`
	File  string `json:"file,omitempty"` // the file name as words, without extension
	// FileAs is the file name's words as written, when splitting camel-case
	// humps changed them ("23andMe" for the File "23and Me"): a brand is
	// asked about as it is spelt.
	FileAs  string  `json:"file_as,omitempty"`
	Folder  string  `json:"folder,omitempty"` // the folder path the file was ingested under
	Parties []Party `json:"parties,omitempty"`
	// Correspondence is set for a document that is correspondence, not a
	// contract: "e-mail", "letter" or "index" (Correspondence). Such a
	// document is kept and searched, but not reviewed as a contract nor
	// counted in deal-room answers unless asked.
	Correspondence string `json:"correspondence,omitempty"`
}

// Name is one name a document may be called by.
type Name struct {
	Text string `json:"text"`
	Kind Kind   `json:"kind"`
	// Party is the index of the party in Names.Parties the name belongs to,
	// or -1.
	Party int `json:"party"`
}

// Learn reads the names of a document from its text (page furniture
// already blanked) and its name in the collection (a path such as
// "deals/acme/Supply Agreement 2019.pdf"). It never fails: a document it
// cannot read names from gets only its file name.
func Learn(text, docName string) Names {
	var n Names
	n.File, n.Folder = fileNames(docName)
	if as := fileAsWritten(docName); Key(as) != Key(n.File) {
		n.FileAs = as
	}
	head := PreambleHead(text, headChars)
	if ext := strings.ToLower(path.Ext(docName)); ext == ".md" || ext == ".markdown" {
		// Markdown's strong emphasis ("**Acme Ltd**") is no part of a
		// name.
		head = strings.ReplaceAll(head, "**", "")
	}
	n.Title, n.Type = nameTitle(head)
	n.Date, n.Year = preambleDate(head)
	n.Parties = readParties(text, head)
	n.Type = outsideNames(n.Title, n.Type, n.Parties)
	return n
}

// headChars is how much of the beginning of a document holds its title and
// preamble (bytes).
const headChars = 6000

// All lists the names, most specific first within each party: full name,
// short names, core, leading words, acronym; then the title, type, date,
// year, file name and folders; then the parties' roles, which name no
// contract but tell the router which words are roles across a collection.
// Duplicates (ignoring case and punctuation) are dropped; a name already
// given by a more specific kind keeps that kind.
func (n Names) All() []Name {
	var out []Name
	seen := map[string]bool{}
	add := func(text string, k Kind, party int) {
		key := Key(text)
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, Name{Text: text, Kind: k, Party: party})
	}
	for i, p := range n.Parties {
		add(p.Name, KindParty, i)
		for _, s := range p.Short {
			add(s, KindShort, i)
		}
		add(p.Core, KindForm, i)
		for _, f := range p.Lead {
			add(f, KindLead, i)
		}
		if p.Acronym != "" {
			add(p.Acronym, KindAcronym, i)
		}
	}
	if Key(n.Title) != Key(n.Type) {
		// A title that only says the type ("MASTER SERVICES AGREEMENT")
		// names a kind of contract, not one: it is given as its type.
		add(n.Title, KindTitle, -1)
	}
	for _, t := range typeSuffixes(n.Type, n.Parties) {
		add(t, KindType, -1)
	}
	add(n.Date, KindDate, -1)
	if n.Year > 0 {
		add(itoa(n.Year), KindYear, -1)
	}
	add(n.File, KindFile, -1)
	add(n.FileAs, KindFile, -1)
	if n.Folder != "" {
		for _, f := range strings.Split(n.Folder, "/") {
			add(wordsOf(f), KindFolder, -1)
		}
	}
	// Roles last: a name already given (a short name that is also a role
	// elsewhere) keeps its kind.
	for i, p := range n.Parties {
		for _, r := range p.Roles {
			add(r, KindRole, i)
		}
	}
	if n.Correspondence != "" {
		out = append(out, Name{Text: n.Correspondence, Kind: KindCorrespondence, Party: -1})
	}
	return out
}

// Describe says in a few words what a name is to its document, for the
// faces: "short name of Bravatek Solutions, Inc.", "title", "year".
func (n Names) Describe(nm Name) string {
	if nm.Party >= 0 && nm.Party < len(n.Parties) && nm.Kind != KindParty {
		return nm.Kind.String() + " of " + n.Parties[nm.Party].Name
	}
	if nm.Kind == KindParty {
		return "party"
	}
	return nm.Kind.String()
}

// oneSpaced is strings.Join(strings.Fields(s), " "): s with its runs of
// white space made one space and none at either end. A text written so
// already (most names) is returned as it is, without building another.
func oneSpaced(s string) string {
	prevSpace := true // at the start, a space would be one too many
	for i, r := range s {
		space := r == ' '
		if !space && (r < utf8.RuneSelf && asciiSpace(byte(r)) || r >= utf8.RuneSelf && unicode.IsSpace(r)) {
			return strings.Join(strings.Fields(s), " ")
		}
		if space && (prevSpace || i == len(s)-1) {
			return strings.Join(strings.Fields(s), " ")
		}
		prevSpace = space
	}
	return s
}

// asciiSpace reports the ASCII white space strings.Fields splits at, but
// for the space itself.
func asciiSpace(c byte) bool { return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }

// Key folds a name for comparison: lower case, letters and digits only,
// words separated by one space.
func Key(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			// "Reed's" and "Reeds" are one name
		default:
			space = true
		}
	}
	return b.String()
}

// fileNames returns a document name's file name as words (extension dropped,
// separators and camel-case humps as spaces) and its folder path.
func fileNames(docName string) (file, folder string) {
	docName = strings.ReplaceAll(docName, "\\", "/")
	dir, base := path.Split(docName)
	if i := strings.LastIndexByte(base, '.'); i > 0 && len(base)-i <= 6 {
		base = base[:i]
	}
	return wordsOf(base), strings.Trim(dir, "/")
}

// fileAsWritten returns a document name's file name with separators as
// spaces, camel-case humps kept (extension dropped).
func fileAsWritten(docName string) string {
	_, base := path.Split(strings.ReplaceAll(docName, "\\", "/"))
	if i := strings.LastIndexByte(base, '.'); i > 0 && len(base)-i <= 6 {
		base = base[:i]
	}
	return strings.Join(strings.FieldsFunc(base, func(r rune) bool {
		return unicode.IsSpace(r) || r == '_' || r == '-' || r == '.' || r == ',' || r == '(' || r == ')' || r == '+'
	}), " ")
}

// wordsOf turns a file or folder name into words: separators and camel-case
// humps become spaces.
func wordsOf(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ',' || r == '(' || r == ')' || r == '+':
			b.WriteByte(' ')
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte(' ')
		}
		prevLower = unicode.IsLower(r)
		b.WriteRune(r)
	}
	return oneSpaced(b.String())
}

// headOf returns at most n bytes of the start of text, cut at a rune
// boundary.
func headOf(text string, n int) string {
	if len(text) <= n {
		return text
	}
	for n > 0 && !isRuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// tailOf returns at most n bytes of the end of text, cut at a rune boundary.
func tailOf(text string, n int) string {
	if len(text) <= n {
		return text
	}
	i := len(text) - n
	for i < len(text) && !isRuneStart(text[i]) {
		i++
	}
	return text[i:]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
