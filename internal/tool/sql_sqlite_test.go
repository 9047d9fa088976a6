//go:build sqlite

package tool

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// newTestSQLite writes a small contracts database to a temp file and
// returns its path.
func newTestSQLite(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "contracts.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE contracts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, counterparty TEXT, value_usd REAL, signed DATE, notes TEXT)`,
		`CREATE TABLE parties (name TEXT PRIMARY KEY, jurisdiction TEXT)`,
		`CREATE VIEW big_contracts AS SELECT name, value_usd FROM contracts WHERE value_usd > 100000`,
		`INSERT INTO parties VALUES ('Acme Corp', 'Delaware'), ('Globex', 'New York')`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 20; i++ {
		party := "Acme Corp"
		if i%2 == 0 {
			party = "Globex"
		}
		if _, err := db.Exec(`INSERT INTO contracts (name, counterparty, value_usd, signed, notes) VALUES (?, ?, ?, ?, ?)`,
			fmt.Sprintf("MSA-%02d", i), party, float64(i)*25000, fmt.Sprintf("2024-%02d-01", (i%12)+1),
			strings.Repeat("long note | with pipe\nand newline ", 50)); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func openTestSQL(t *testing.T, cfg SQLConfig) *SQL {
	t.Helper()
	if cfg.DSN == "" {
		cfg.DSN = newTestSQLite(t)
	}
	s, err := OpenSQL(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sqlArgs(q string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"query": q})
	return b
}

func countContracts(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM contracts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSQLSelect(t *testing.T) {
	s := openTestSQL(t, SQLConfig{Driver: "sqlite3"})
	sp := s.Spec()
	if sp.Name != "sql_query" || !json.Valid(sp.Parameters) {
		t.Fatalf("spec = %+v", sp)
	}
	for _, want := range []string{
		"contracts(id INTEGER, name TEXT, counterparty TEXT, value_usd REAL, signed DATE, notes TEXT)",
		"parties(name TEXT, jurisdiction TEXT)",
		"big_contracts(name TEXT, value_usd REAL)",
	} {
		if !strings.Contains(sp.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, sp.Description)
		}
	}
	res, err := s.Call(context.Background(), sqlArgs(`
		-- contracts per counterparty
		WITH c AS (SELECT counterparty, count(*) AS n, sum(value_usd) AS total FROM contracts GROUP BY counterparty)
		SELECT c.counterparty, p.jurisdiction, c.n, c.total FROM c JOIN parties p ON p.name = c.counterparty
		ORDER BY c.counterparty;`))
	if err != nil {
		t.Fatal(err)
	}
	want := "counterparty | jurisdiction | n | total\nAcme Corp | Delaware | 10 | 2.5e+06\nGlobex | New York | 10 | 2.75e+06\n(2 rows)"
	if res.Text != want || !res.External {
		t.Errorf("result:\n%s\nwant:\n%s", res.Text, want)
	}
	// A keyword or ';' inside a string literal or quoted identifier is data.
	res, err = s.Call(context.Background(), sqlArgs(`SELECT 'DELETE FROM contracts; DROP TABLE x' AS "insert", NULL AS n`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "insert | n\nDELETE FROM contracts; DROP TABLE x | NULL\n(1 rows)" {
		t.Errorf("string literal: %q", res.Text)
	}
}

func TestSQLRefusesWrites(t *testing.T) {
	path := newTestSQLite(t)
	s := openTestSQL(t, SQLConfig{Driver: "sqlite", DSN: path})
	for _, q := range []string{
		`INSERT INTO contracts (name) VALUES ('x')`,
		`UPDATE contracts SET value_usd = 0`,
		`DELETE FROM contracts`,
		`DROP TABLE contracts`,
		`PRAGMA query_only = 0`,
		`PRAGMA writable_schema = 1`,
		`ATTACH DATABASE '/tmp/pakton-evil.db' AS evil`,
		`SELECT 1; DROP TABLE contracts`,
		`SELECT 1; DELETE FROM contracts;`,
		`SELECT 1;; SELECT 2`,
		`SELECT 1; 'x'`,
		`WITH x AS (SELECT 1) DELETE FROM contracts`,
		`WITH x AS (SELECT 1) INSERT INTO parties SELECT 'a', 'b'`,
		`SELECT * INTO copy FROM contracts`,
		`REPLACE INTO parties VALUES ('Acme Corp', 'Texas')`,
		`CREATE TABLE t (x)`,
		`VACUUM`,
		`/* hidden */ DELETE FROM contracts`,
		`-- comment
		 UPDATE contracts SET name = 'x'`,
		`SELECT 1 /* unterminated`,
		`SELECT 'unterminated`,
		`EXPLAIN SELECT 1`,
		``,
	} {
		if res, err := s.Call(context.Background(), sqlArgs(q)); err == nil {
			t.Errorf("%q accepted: %s", q, res.Text)
		}
	}
	if n := countContracts(t, path); n != 20 {
		t.Errorf("contracts = %d after refused writes, want 20", n)
	}
}

// TestSQLReadOnlyConnection bypasses the statement check to show the
// deeper layers refuse writes on their own: the read-only transaction on a
// mode=ro, query_only connection, even when the DSN asks for read-write.
func TestSQLReadOnlyConnection(t *testing.T) {
	path := newTestSQLite(t)
	s := openTestSQL(t, SQLConfig{DSN: "file:" + path + "?mode=rwc&_pragma=query_only(0)"})
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO contracts (name) VALUES ('x')`,
		`DELETE FROM contracts`,
		`DROP TABLE parties`,
		`CREATE TABLE t (x)`,
	} {
		tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.ExecContext(ctx, q)
		tx.Rollback()
		if err == nil {
			t.Errorf("%q ran on the read-only connection", q)
		}
	}
	// And outside any transaction, too.
	if _, err := s.db.ExecContext(ctx, `DELETE FROM contracts`); err == nil {
		t.Error("DELETE ran outside a transaction")
	}
	if n := countContracts(t, path); n != 20 {
		t.Errorf("contracts = %d, want 20", n)
	}
}

func TestSQLLimits(t *testing.T) {
	s := openTestSQL(t, SQLConfig{MaxRows: 5, MaxCell: 40})
	res, err := s.Call(context.Background(), sqlArgs(`SELECT name, notes FROM contracts ORDER BY id`))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(res.Text, "\n")
	if len(lines) != 7 || lines[6] != "(stopped at 5 rows; more rows match)" {
		t.Fatalf("row limit:\n%s", res.Text)
	}
	// One line per row: newlines and the separator are escaped; long
	// values are cut to MaxCell characters.
	if want := `MSA-01 | long note \| with pipe\nand newline lon…`; lines[1] != want {
		t.Errorf("row = %q, want %q", lines[1], want)
	}
	// Exactly MaxRows rows is not "more rows".
	res, err = s.Call(context.Background(), sqlArgs(`SELECT id FROM contracts LIMIT 5`))
	if err != nil || !strings.HasSuffix(res.Text, "(5 rows)") {
		t.Errorf("5 rows: %q, %v", res.Text, err)
	}
}

func TestSQLTimeout(t *testing.T) {
	s := openTestSQL(t, SQLConfig{Timeout: Duration(200 * time.Millisecond)})
	start := time.Now()
	_, err := s.Call(context.Background(), sqlArgs(
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`))
	if err == nil || !strings.Contains(err.Error(), "exceeded 200ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("query ran %s after its 200ms timeout", d)
	}
	// The connection is still usable.
	if _, err := s.Call(context.Background(), sqlArgs(`SELECT 1`)); err != nil {
		t.Errorf("after timeout: %v", err)
	}
}

func TestSQLPathWithURICharacters(t *testing.T) {
	src := newTestSQLite(t)
	dir := filepath.Join(t.TempDir(), "my contracts #1 (100%)")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "db.sqlite")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openTestSQL(t, SQLConfig{DSN: path})
	res, err := s.Call(context.Background(), sqlArgs(`SELECT count(*) FROM contracts`))
	if err != nil || res.Text != "count(*)\n20\n(1 rows)" {
		t.Errorf("%q, %v", res.Text, err)
	}
}

func TestExternalBuildsConfiguredTools(t *testing.T) {
	db := newTestSQLite(t)
	tools, closeFn, err := External(context.Background(), ExternalConfig{
		WebSearch: &WebConfig{URL: "http://127.0.0.1:1"},
		Wikipedia: &WikiConfig{URL: "https://en.wikipedia.org"},
		SQL:       &SQLConfig{DSN: db},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Spec().Name)
	}
	if !reflect.DeepEqual(names, []string{"web_search", "wikipedia", "sql_query"}) {
		t.Errorf("tools = %v", names)
	}
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	// The database is closed.
	if _, err := tools[2].Call(context.Background(), sqlArgs("SELECT 1")); err == nil {
		t.Error("sql_query works after close")
	}
}

func TestExternalClosesSQLWhenMCPFails(t *testing.T) {
	// SQL opens fine, then MCP fails: the database is closed again.
	tools, closeFn, err := External(context.Background(), ExternalConfig{SQL: &SQLConfig{DSN: newTestSQLite(t)}, MCP: []MCPServer{{Name: "m"}}})
	if err == nil || !strings.Contains(err.Error(), `mcp server "m"`) || tools != nil || closeFn == nil {
		t.Errorf("tools %v, err %v", tools, err)
	}
}
