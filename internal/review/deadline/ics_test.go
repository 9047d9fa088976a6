package deadline

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"
)

// TestICSImports writes deadlines whose words need escaping and folding
// (commas, semicolons, backslashes, line breaks, quotes longer than a line,
// characters of several bytes) and reads the file back with an iCalendar
// parser (github.com/arran4/golang-ical), as a calendar client would: every
// dated deadline is one all-day event on its day (a window over its days),
// its text comes back as written, and the file keeps RFC 5545's line rules.
func TestICSImports(t *testing.T) {
	long := strings.Repeat("Société Générale, Zürich; notice \\ “non-renewal” — ", 6)
	ds := []Deadline{
		{DocID: "a1", DocName: "01 Corporate/MSA, v2.txt", Title: "Master Services Agreement — Acme; Beta, 3 March 2025", Kind: KindNonRenewal,
			Label: "Last day to give notice of non-renewal", Date: "2027-12-04", How: "90 days before the end of the term on 2028-03-03",
			Clauses: []Clause{{Provision: NonRenewal, Path: "ARTICLE XI > 11.1", Pages: []int{7}, Quote: long}}},
		{DocID: "b2", DocName: "dist.txt", Kind: KindOption, Label: "Window to exercise the option to renew or extend", Start: "2029-07-01", Date: "2030-01-02",
			Clauses: []Clause{{Provision: Renewal, Quote: "Distributor may request a renewal\nby written notice."}}},
		{DocID: "c3", DocName: "nda.md", Kind: KindExpiry, Label: "Initial term ends", Why: "no term or expiry clause was found"},
	}
	var buf bytes.Buffer
	stamp := time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC)
	if err := ICS(&buf, ds, "pakton deadlines — deal, 2026", stamp); err != nil {
		t.Fatal(err)
	}
	raw := buf.String()

	// RFC 5545 §3.1: CRLF line ends, at most 75 octets a line, folds
	// never inside a character
	if !strings.HasSuffix(raw, "\r\n") || strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\n") {
		t.Fatal("lines must end in CRLF, and only there")
	}
	folded := 0
	for _, line := range strings.Split(strings.TrimSuffix(raw, "\r\n"), "\r\n") {
		if len(line) > 75 {
			t.Errorf("line of %d octets: %q", len(line), line)
		}
		if !utf8.ValidString(line) {
			t.Errorf("a fold split a character: %q", line)
		}
		if strings.HasPrefix(line, " ") {
			folded++
		}
	}
	if folded == 0 {
		t.Error("nothing folded: the test text should need folding")
	}

	cal, err := ics.ParseCalendar(strings.NewReader(raw))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	evs := cal.Events()
	if len(evs) != 2 {
		t.Fatalf("%d events, want 2 (the undated deadline has no place in a calendar)", len(evs))
	}
	uids := map[string]bool{}
	for _, ev := range evs {
		uid := ev.GetProperty(ics.ComponentPropertyUniqueId)
		if uid == nil || uid.Value == "" || uids[uid.Value] {
			t.Errorf("UID missing or repeated: %v", uid)
		} else {
			uids[uid.Value] = true
		}
		if st, err := ev.GetDtStampTime(); err != nil || !st.Equal(stamp) {
			t.Errorf("DTSTAMP %v %v", st, err)
		}
		if p := ev.GetProperty(ics.ComponentPropertyDtStart); p == nil || strings.Join(p.ICalParameters["VALUE"], "") != "DATE" {
			t.Errorf("DTSTART is not a DATE value: %+v", p)
		}
	}
	first, second := evs[0], evs[1]
	start, err := first.GetAllDayStartAt()
	if err != nil || start.Format(day) != "2027-12-04" {
		t.Errorf("start %v %v", start, err)
	}
	end, err := first.GetAllDayEndAt()
	if err != nil || end.Format(day) != "2027-12-05" {
		t.Errorf("end (exclusive) %v %v", end, err)
	}
	sum := first.GetProperty(ics.ComponentPropertySummary)
	if sum == nil || sum.Value != "Last day to give notice of non-renewal — Master Services Agreement — Acme; Beta, 3 March 2025" {
		t.Errorf("summary %+v", sum)
	}
	desc := first.GetProperty(ics.ComponentPropertyDescription)
	if desc == nil || !strings.Contains(desc.Value, long) || !strings.Contains(desc.Value, "File: 01 Corporate/MSA, v2.txt\n") {
		t.Errorf("description did not come back as written: %q", desc)
	}
	if len(first.Alarms()) != 1 {
		t.Errorf("alarms %d", len(first.Alarms()))
	}
	ws, _ := second.GetAllDayStartAt()
	we, _ := second.GetAllDayEndAt()
	if ws.Format(day) != "2029-07-01" || we.Format(day) != "2030-01-03" {
		t.Errorf("window %s – %s", ws.Format(day), we.Format(day))
	}
	if p := cal.CalendarProperties; len(p) == 0 {
		t.Error("no calendar properties")
	}

	// The same deadline exported again keeps its UID (a client updates it).
	var again bytes.Buffer
	moved := ds[:1]
	moved[0].Date = "2027-12-01"
	ICS(&again, moved, "x", stamp)
	cal2, err := ics.ParseCalendar(&again)
	if err != nil || !uids[cal2.Events()[0].GetProperty(ics.ComponentPropertyUniqueId).Value] {
		t.Errorf("UID changed with the date: %v", err)
	}
}

func TestEscapeText(t *testing.T) {
	if got := escapeText("a,b;c\\d\ne\r\nf\x01g"); got != `a\,b\;c\\d\ne\nfg` {
		t.Errorf("escaped %q", got)
	}
}
