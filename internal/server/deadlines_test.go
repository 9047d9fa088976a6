package server

import (
	"net/http"
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"
	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/usecase"
)

// The deadlines of a collection through the API: JSON, --within, one
// document, the iCalendar file a calendar imports, and bad parameters.
func TestDeadlinesAPI(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deal")
	msa, err := examples.FS.ReadFile("contracts/master-services-agreement.txt")
	if err != nil {
		t.Fatal(err)
	}
	dist, err := examples.FS.ReadFile("contracts/distribution-agreement.txt")
	if err != nil {
		t.Fatal(err)
	}
	e.ingest("deal", key, file{"msa.txt", string(msa)}, file{"dist.txt", string(dist)})

	code, body := e.do("GET", "/api/v1/collections/deal/deadlines?as_of=2026-12-07", key, nil, "")
	if code != http.StatusOK {
		t.Fatalf("deadlines: %d %s", code, body)
	}
	list := decode[usecase.DeadlineList](t, body)
	if list.Contracts != 2 || list.AsOf != "2026-12-07" || len(list.Deadlines) < 4 {
		t.Fatalf("list %+v", list)
	}
	dates := map[string]string{}
	for _, d := range list.Deadlines {
		dates[d.DocName+" "+string(d.Kind)] = d.Date
	}
	if dates["msa.txt non_renewal_notice"] != "2027-12-04" || dates["dist.txt option"] != "2030-01-02" {
		t.Errorf("dates %v", dates)
	}

	code, body = e.do("GET", "/api/v1/collections/deal/deadlines?as_of=2026-12-07&within=1y", key, nil, "")
	soon := decode[usecase.DeadlineList](t, body)
	if code != http.StatusOK || len(soon.Deadlines) != 1 || soon.Deadlines[0].Date != "2027-12-04" {
		t.Errorf("within 1y: %d %s", code, body)
	}
	code, body = e.do("GET", "/api/v1/collections/deal/deadlines?as_of=2026-12-07&doc=dist.txt", key, nil, "")
	one := decode[usecase.DeadlineList](t, body)
	if code != http.StatusOK || one.Contracts != 1 {
		t.Errorf("one document: %d %s", code, body)
	}

	req, _ := http.NewRequest("GET", e.ts.URL+"/api/v1/collections/deal/deadlines?as_of=2026-12-07&format=ics", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/calendar") ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "deadlines-deal.ics") {
		t.Fatalf("ics: %d %s %s", resp.StatusCode, ct, resp.Header.Get("Content-Disposition"))
	}
	cal, err := ics.ParseCalendar(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	dated := 0
	for _, d := range list.Deadlines {
		if d.Dated() {
			dated++
		}
	}
	if len(cal.Events()) != dated {
		t.Errorf("%d events for %d dated deadlines", len(cal.Events()), dated)
	}

	for _, q := range []string{"within=soon", "as_of=7/12/2026", "format=pdf"} {
		if code, body := e.do("GET", "/api/v1/collections/deal/deadlines?"+q, key, nil, ""); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	// another collection's key sees nothing of this one
	if code, _ := e.do("GET", "/api/v1/collections/deal/deadlines", e.key("other"), nil, ""); code != http.StatusForbidden && code != http.StatusNotFound {
		t.Errorf("another key: %d", code)
	}
}
