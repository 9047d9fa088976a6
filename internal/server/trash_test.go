package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/store"
)

// Removing a document through the API keeps it in the trash, from which
// it comes back whole; ?now=true deletes at once.
func TestTrashAPI(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deal")
	e.ingest("deal", key, file{"msa.txt", contract("Beta LLC", "two years")}, file{"nda.txt", contract("Gamma Inc.", "one year")})
	code, body := e.do("GET", "/api/v1/collections/deal/documents", key, nil, "")
	docs := decode[struct {
		Documents []struct{ ID, Name string } `json:"documents"`
	}](t, body).Documents
	if code != http.StatusOK || len(docs) != 2 {
		t.Fatalf("documents: %d %s", code, body)
	}
	id := docs[0].ID
	if code, body := e.do("DELETE", "/api/v1/collections/deal/documents/"+id, key, nil, ""); code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", code, body)
	}
	if code, _ := e.do("GET", "/api/v1/collections/deal/documents/"+id, key, nil, ""); code != http.StatusNotFound {
		t.Errorf("removed document still served: %d", code)
	}
	code, body = e.do("GET", "/api/v1/collections/deal/trash", key, nil, "")
	trash := decode[struct {
		Trash []store.TrashEntry `json:"trash"`
	}](t, body).Trash
	if code != http.StatusOK || len(trash) != 1 || trash[0].ID != id || trash[0].Until.IsZero() {
		t.Fatalf("trash: %d %s", code, body)
	}
	// the trash is not a collection anyone lists
	if _, body := e.do("GET", "/api/v1/collections", e.admin, nil, ""); strings.Contains(string(body), "trash.") {
		t.Errorf("collections list the trash: %s", body)
	}
	if code, body := e.do("POST", "/api/v1/collections/deal/trash/"+id+"/restore", key, nil, ""); code != http.StatusOK {
		t.Fatalf("restore: %d %s", code, body)
	}
	if code, _ := e.do("GET", "/api/v1/collections/deal/documents/"+id, key, nil, ""); code != http.StatusOK {
		t.Errorf("restored document: %d", code)
	}
	code, body = e.do("POST", "/api/v1/collections/deal/trash/"+id+"/restore", key, nil, "")
	if code != http.StatusNotFound {
		t.Errorf("restore twice: %d %s", code, body)
	}
	// another collection's key can neither list nor restore
	if code, _ := e.do("GET", "/api/v1/collections/deal/trash", e.key("other"), nil, ""); code != http.StatusForbidden && code != http.StatusNotFound {
		t.Errorf("another key lists the trash: %d", code)
	}
	// at once: nothing kept
	if code, _ := e.do("DELETE", "/api/v1/collections/deal/documents/"+docs[1].ID+"?now=true", key, nil, ""); code != http.StatusNoContent {
		t.Errorf("delete now: %d", code)
	}
	_, body = e.do("GET", "/api/v1/collections/deal/trash", key, nil, "")
	if strings.Contains(string(body), docs[1].ID) {
		t.Errorf("deleted at once, yet in the trash: %s", body)
	}
}
