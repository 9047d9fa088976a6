package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// zenithStore is a collection where one company is party to two contracts.
type zstore struct{ st *store.Store }

func zenithStore(t *testing.T) *zstore {
	t.Helper()
	dir := t.TempDir()
	st, err := wvtest.OpenStore(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	write := func(name, title, party, other string) string {
		p := filepath.Join(dir, name)
		text := title + "\n\nThis " + title + " is made by and between " + party + ", a Delaware corporation (\"" + strings.Fields(party)[0] + "\"), and " + other + " (\"Customer\").\n\n1. Assignment\n1.1 Neither party may assign this Agreement without consent.\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := []string{
		write("zenith-supply.txt", "SUPPLY AGREEMENT", "Zenith Widgets, Inc.", "Borealis Foods LLC"),
		write("zenith-license.txt", "LICENSE AGREEMENT", "Zenith Widgets, Inc.", "Orion Data Corp."),
		write("other.txt", "SERVICES AGREEMENT", "Quarry Partners, Inc.", "Vega Capital LLC"),
	}
	if err := ingestInto(st, "deal", paths); err != nil {
		t.Fatal(err)
	}
	return &zstore{st}
}

// TestAskBackElicitation: a client that supports elicitation is asked which
// contract an ambiguous name means and the answer narrows the report; one
// that does not gets the question back with the report.
func TestAskBackElicitation(t *testing.T) {
	zs := zenithStore(t)
	server := NewServer(NewStoreBackend(testService(t, zs.st, collection.Models{}), "deal"))
	ask := map[string]any{"question": "Can we assign our contract with Zenith?"}

	// A client without elicitation: the question comes back.
	cs := connect(t, server)
	var rep report.Report
	res := call(t, cs, "ask", ask, &rep)
	if res.IsError || rep.QuestionForUser == nil || len(rep.QuestionForUser.Choices) != 2 || !strings.HasPrefix(text(res), "QUESTION FOR THE USER") {
		t.Fatalf("no elicitation: %+v\n%s", rep.QuestionForUser, text(res))
	}

	// A client with elicitation: asked, and the answer narrows the report.
	var asked string
	ct, stt := mcpsdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, &mcpsdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error) {
			asked = req.Params.Message
			schema := req.Params.RequestedSchema.(map[string]any)
			prop := schema["properties"].(map[string]any)["contract"].(map[string]any)
			ids, names := prop["enum"].([]any), prop["enumNames"].([]any)
			for i, n := range names {
				if strings.Contains(n.(string), "zenith-license.txt") {
					return &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"contract": ids[i]}}, nil
				}
			}
			return &mcpsdk.ElicitResult{Action: "decline"}, nil
		},
	})
	ecs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ecs.Close()
	var narrowed report.Report
	res = call(t, ecs, "ask", ask, &narrowed)
	if res.IsError || !strings.Contains(asked, "Zenith") {
		t.Fatalf("elicitation: asked %q, %s", asked, text(res))
	}
	if narrowed.QuestionForUser != nil || len(narrowed.Documents) != 1 || narrowed.Documents[0].Name != "zenith-license.txt" {
		t.Errorf("after the answer: documents %+v, question %+v", narrowed.Documents, narrowed.QuestionForUser)
	}
}
