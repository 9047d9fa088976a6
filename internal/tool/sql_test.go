package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSQLOpenErrors(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "missing.db")
	if _, err := OpenSQL(ctx, SQLConfig{Driver: "sqlite", DSN: missing}); err == nil {
		t.Error("missing database file opened")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("opening a missing database created it")
	}
	if _, err := OpenSQL(ctx, SQLConfig{Driver: "postgres", DSN: "postgres://u:hunter2pass@db/x"}); err == nil ||
		!strings.Contains(err.Error(), "not built into pakton") || strings.Contains(err.Error(), "hunter2pass") {
		t.Errorf("unknown driver: %v", err)
	}
	if _, err := OpenSQL(ctx, SQLConfig{Driver: "sqlite"}); err == nil {
		t.Error("empty DSN accepted")
	}
	if _, err := OpenSQL(ctx, SQLConfig{Driver: "sqlite", DSN: ":memory:"}); err == nil {
		t.Error(":memory: accepted")
	}
}

func TestSQLReadOnlyDSN(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/data/c.db", "file:/data/c.db?_pragma=query_only%281%29&mode=ro"},
		{"/data/my a#c%.db", "file:/data/my a%23c%25.db?_pragma=query_only%281%29&mode=ro"},
		{"/data/c.db?_pragma=busy_timeout(500)", "file:/data/c.db?_pragma=busy_timeout%28500%29&_pragma=query_only%281%29&mode=ro"},
		{"file:/data/c.db?mode=rwc&cache=shared", "file:/data/c.db?_pragma=query_only%281%29&cache=shared&mode=ro"},
		{"file:c.db?_pragma=busy_timeout(500)", "file:c.db?_pragma=busy_timeout%28500%29&_pragma=query_only%281%29&mode=ro"},
	} {
		got, err := sqliteReadOnlyDSN(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%q → %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestSQLCheckReadOnly(t *testing.T) {
	for _, tc := range []struct {
		q, want string // want "" = refused
	}{
		{"SELECT 1", "SELECT 1"},
		{"  select 1 ;  ", "select 1"},
		{"SELECT 1;;\n-- done\n", "SELECT 1"},
		{"WITH a AS (SELECT 1) SELECT * FROM a", "WITH a AS (SELECT 1) SELECT * FROM a"},
		{"SELECT replace(name, 'a', 'b'), update_date FROM t", "SELECT replace(name, 'a', 'b'), update_date FROM t"},
		{`SELECT "delete", [drop], ` + "`insert`" + ` FROM t`, `SELECT "delete", [drop], ` + "`insert`" + ` FROM t`},
		{"SELECT 'it''s; DROP'", "SELECT 'it''s; DROP'"},
		{"SELECT $$a;b$$", "SELECT $$a;b$$"},
		{"SELECT 1; SELECT 2", ""},
		{"SELECT 1; -- x\n SELECT 2", ""},
		{"SELECT 1 FOR UPDATE", ""},
		{"INSERT INTO t VALUES (1)", ""},
		{"pragma table_info(t)", ""},
		{"(SELECT 1)", "(SELECT 1)"},
		{"(DELETE FROM t)", ""},
		{"SELECT 'a", ""},
		{"SELECT [a", ""},
		{"SELECT $x$ a", ""},
	} {
		got, err := checkReadOnlySQL(tc.q)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q accepted as %q", tc.q, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q → %q, %v; want %q", tc.q, got, err, tc.want)
		}
	}
}

func FuzzSQLCheckReadOnly(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT 'a;b'", "WITH x AS (SELECT 1) SELECT * FROM x;", "SELECT $$;$$", "/*", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, err := checkReadOnlySQL(q)
		if err != nil {
			return
		}
		// Whatever is accepted is a trimmed prefix of the input, starts
		// with SELECT or WITH, and has no top-level statement after it.
		if !strings.HasPrefix(strings.TrimSpace(q), got) {
			t.Fatalf("%q → %q is not a prefix", q, got)
		}
		if again, err := checkReadOnlySQL(got); err != nil || again != got {
			t.Fatalf("%q → %q not stable: %q, %v", q, got, again, err)
		}
	})
}
