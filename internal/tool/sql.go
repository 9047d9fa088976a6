package tool

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/llm"
)

const (
	defaultSQLRows    = 200
	defaultSQLCell    = 500
	defaultSQLTimeout = 10 * time.Second
	maxSQLText        = 64 << 10 // bytes of rendered rows returned to the model
	maxSchemaText     = 6000     // bytes of schema in the tool's description
)

// SQLConfig configures the sql_query tool.
type SQLConfig struct {
	// Driver is a database/sql driver name: "sqlite" (also accepted as
	// "sqlite3"), which needs no server and is linked only into a build
	// with the sqlite tag (SQLiteBuilt).
	Driver string `json:"driver"`
	// DSN is the data source name; for SQLite a file path or a "file:" URI.
	// SQLite databases are always opened read-only, whatever the DSN says.
	DSN string `json:"dsn"`
	// MaxRows caps the rows returned per query (default 200).
	MaxRows int `json:"max_rows,omitempty"`
	// MaxCell caps the characters shown per value (default 500).
	MaxCell int `json:"max_cell,omitempty"`
	// Timeout bounds one query (default 10s).
	Timeout Duration `json:"timeout,omitempty"`
}

// SQL is the sql_query tool: read-only SQL over a configured database.
//
// Writes are refused at every layer that can refuse them: the statement
// must be a single SELECT or WITH query without data-changing keywords;
// it runs in a read-only transaction that is always rolled back; and
// SQLite files are opened with mode=ro and PRAGMA query_only.
type SQL struct {
	db      *sql.DB
	driver  string
	schema  string
	maxRows int
	maxCell int
	timeout time.Duration
}

// OpenSQL opens the configured database, checks it answers, and reads its
// schema (table and column names) for the tool's description. The caller
// closes the tool.
func OpenSQL(ctx context.Context, cfg SQLConfig) (*SQL, error) {
	driver := strings.ToLower(strings.TrimSpace(cfg.Driver))
	if driver == "" || driver == "sqlite3" {
		driver = "sqlite"
	}
	if driver == "sqlite" && !SQLiteBuilt {
		return nil, errors.New(SQLiteAbsent)
	}
	if !slices.Contains(sql.Drivers(), driver) {
		return nil, fmt.Errorf("sql_query: driver %q is not built into pakton (available: %s)",
			cfg.Driver, strings.Join(sql.Drivers(), ", "))
	}
	if strings.TrimSpace(cfg.DSN) == "" {
		return nil, fmt.Errorf("sql_query: no data source (%s)", EnvSQLDSN)
	}
	dsn := cfg.DSN
	if driver == "sqlite" {
		var err error
		if dsn, err = sqliteReadOnlyDSN(cfg.DSN); err != nil {
			return nil, fmt.Errorf("sql_query: %w", err)
		}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("sql_query: open %s database: %w", driver, scrubDSN(err, cfg.DSN))
	}
	t := &SQL{
		db:      db,
		driver:  driver,
		maxRows: clampInt(cfg.MaxRows, defaultSQLRows, 10000),
		maxCell: clampInt(cfg.MaxCell, defaultSQLCell, 100000),
		timeout: cfg.Timeout.or(defaultSQLTimeout),
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sql_query: connect to %s database: %w", driver, scrubDSN(err, cfg.DSN))
	}
	if t.schema, err = t.readSchema(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sql_query: read schema of %s database: %w", driver, scrubDSN(err, cfg.DSN))
	}
	return t, nil
}

// scrubDSN hides the DSN (which may hold a password) in err's message.
func scrubDSN(err error, dsn string) error {
	if u, perr := url.Parse(dsn); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			err = redact(err, p)
		}
	}
	return err
}

// sqliteReadOnlyDSN turns a SQLite file path or "file:" URI into a URI that
// opens the file read-only (mode=ro) with PRAGMA query_only set, whatever
// mode the user's DSN asked for. The "file:" form matters: modernc's driver
// hands only "file:" names to SQLite as URIs, so only then is mode=ro
// honoured (and a missing file is an error, not a new empty database).
func sqliteReadOnlyDSN(dsn string) (string, error) {
	dsn = strings.TrimSpace(dsn)
	path, query, _ := strings.Cut(dsn, "?")
	if p, ok := strings.CutPrefix(path, "file:"); ok {
		path = p
	} else {
		// A plain file name: escape the characters a URI gives meaning to.
		path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	}
	if path == "" || path == ":memory:" {
		return "", errors.New("an SQLite DSN must name a database file")
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("SQLite DSN parameters: %w", err)
	}
	q.Del("mode")
	q.Del("_query_only")
	q.Del("immutable")
	q.Set("mode", "ro")
	q.Add("_pragma", "query_only(1)")
	return "file:" + path + "?" + q.Encode(), nil
}

// readSchema lists tables and views with their columns.
func (t *SQL) readSchema(ctx context.Context) (string, error) {
	type column struct{ table, name, typ string }
	var cols []column
	var query string
	if t.driver == "sqlite" {
		query = `SELECT m.name, p.name, p.type
			FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p
			WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%'
			ORDER BY m.name, p.cid`
	} else {
		query = `SELECT table_name, column_name, data_type
			FROM information_schema.columns
			WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'mysql', 'performance_schema', 'sys')
			ORDER BY table_name, ordinal_position`
	}
	rows, err := t.db.QueryContext(ctx, query)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var c column
		var typ sql.NullString
		if err := rows.Scan(&c.table, &c.name, &typ); err != nil {
			return "", err
		}
		c.typ = typ.String
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}

	var b strings.Builder
	for i := 0; i < len(cols); {
		j := i
		var parts []string
		for ; j < len(cols) && cols[j].table == cols[i].table; j++ {
			parts = append(parts, strings.TrimSpace(cols[j].name+" "+cols[j].typ))
		}
		line := cols[i].table + "(" + strings.Join(parts, ", ") + ")\n"
		if b.Len()+len(line) > maxSchemaText {
			rest := 0
			for k := j; k < len(cols); k++ {
				if k == j || cols[k].table != cols[k-1].table {
					rest++
				}
			}
			fmt.Fprintf(&b, "… and %d more tables\n", rest+1)
			break
		}
		b.WriteString(line)
		i = j
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// Close closes the database.
func (t *SQL) Close() error { return t.db.Close() }

// Spec describes sql_query to the model, schema included.
func (t *SQL) Spec() llm.ToolSpec {
	schema := t.schema
	if schema == "" {
		schema = "(no tables)"
	}
	return llm.ToolSpec{
		Name: "sql_query",
		Description: "Run one read-only SQL query (SELECT or WITH … SELECT; " + t.driver + " dialect) on the " +
			"user's database, e.g. for contract metadata, parties, amounts or dates the user keeps there. " +
			"At most " + itoa(t.maxRows) + " rows are returned; aggregate or filter rather than fetching " +
			"everything. The data is the user's records, not contract text.\nTables:\n" + schema,
		Parameters: paramsOf[sqlQueryArgs](nil),
	}
}

// sqlQueryArgs are the arguments of sql_query.
type sqlQueryArgs struct {
	Query string `json:"query" jsonschema:"a single SELECT statement"`
}

// Call runs one read-only query and renders the rows as text.
func (t *SQL) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	var in sqlQueryArgs
	if err := json.Unmarshal(args, &in); err != nil {
		return Result{}, fmt.Errorf("sql_query: arguments: %w", err)
	}
	q, err := checkReadOnlySQL(in.Query)
	if err != nil {
		return Result{}, fmt.Errorf("sql_query: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()

	tx, err := t.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Result{}, fmt.Errorf("sql_query: begin read-only transaction: %w", err)
	}
	// Never committed: whatever the statement did is undone.
	defer tx.Rollback()

	text, err := t.run(ctx, tx, q)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("sql_query: query exceeded %s: %w", t.timeout, ctx.Err())
		}
		return Result{}, fmt.Errorf("sql_query: %w", err)
	}
	return Result{Text: text, External: true}, nil
}

// run executes q in tx and renders the result.
func (t *SQL) run(ctx context.Context, tx *sql.Tx, q string) (string, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(strings.Join(cols, " | "))
	b.WriteByte('\n')

	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n, truncated := 0, ""
	for rows.Next() {
		if n == t.maxRows {
			truncated = fmt.Sprintf("(stopped at %d rows; more rows match)", t.maxRows)
			break
		}
		if b.Len() > maxSQLText {
			truncated = fmt.Sprintf("(stopped at %d rows: output limit of %d bytes)", n, maxSQLText)
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(t.cell(v))
		}
		b.WriteByte('\n')
		n++
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if truncated != "" {
		b.WriteString(truncated)
	} else {
		fmt.Fprintf(&b, "(%d rows)", n)
	}
	return b.String(), nil
}

// cell renders one value on one line, truncated to maxCell characters.
func (t *SQL) cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		if !utf8.Valid(x) {
			return fmt.Sprintf("<%d bytes>", len(x))
		}
		s = string(x)
	case time.Time:
		s = x.Format(time.RFC3339Nano)
	default:
		s = fmt.Sprint(x)
	}
	s = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`, "|", `\|`).Replace(s)
	return truncateRunes(s, t.maxCell)
}

// forbiddenSQL are keywords that change data, schema or the connection;
// none belongs in a read-only query. Statements that start with any other
// keyword (PRAGMA, SET, EXPLAIN…) are refused by the SELECT/WITH rule; this
// list catches writes nested in a query: WITH … DELETE, SELECT … INTO. It
// leaves out words that are also common column or function names (REPLACE,
// SET, LOAD…): the read-only transaction and connection stop those.
var forbiddenSQL = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "UPSERT": true,
	"INTO":   true, // SELECT … INTO creates tables in some dialects; REPLACE INTO
	"CREATE": true, "DROP": true, "ALTER": true, "TRUNCATE": true,
	"ATTACH": true, "DETACH": true, "PRAGMA": true, "VACUUM": true, "REINDEX": true,
	"GRANT": true, "REVOKE": true, "COPY": true, "EXEC": true, "EXECUTE": true,
	"BEGIN": true, "COMMIT": true, "ROLLBACK": true, "SAVEPOINT": true,
	"LOAD_EXTENSION": true, "OUTFILE": true, "DUMPFILE": true,
}

// checkReadOnlySQL accepts a single SELECT or WITH statement and returns it
// without trailing semicolons. It reads SQL lexically (string literals,
// quoted identifiers and comments are skipped), so a keyword inside a
// string does not count, and refuses a second statement after ';' and the
// keywords in forbiddenSQL. This is the first layer only: the query also
// runs in a read-only transaction on a read-only connection.
func checkReadOnlySQL(q string) (string, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return "", errors.New("empty query")
	}
	var (
		words []string
		end   = -1 // offset of the first top-level ';'
	)
	for i := 0; i < len(q); {
		c := q[i]
		if end >= 0 && !unicode.IsSpace(rune(c)) && c != ';' &&
			!strings.HasPrefix(q[i:], "--") && !strings.HasPrefix(q[i:], "/*") {
			return "", errors.New("only one statement is allowed")
		}
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c { // doubled quote escapes itself
						j++
						continue
					}
					break
				}
			}
			if j >= len(q) {
				return "", errors.New("unterminated quoted string or identifier")
			}
			i = j + 1
		case c == '[': // SQLite/SQL Server quoted identifier
			j := strings.IndexByte(q[i:], ']')
			if j < 0 {
				return "", errors.New("unterminated [identifier]")
			}
			i += j + 1
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			i += j
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return "", errors.New("unterminated /* comment")
			}
			i += j + 4
		case c == ';':
			if end < 0 {
				end = i
			}
			i++
		case c == '$' && dollarQuote(q[i:]) != "":
			// PostgreSQL dollar-quoted string: $tag$ … $tag$
			tag := dollarQuote(q[i:])
			j := strings.Index(q[i+len(tag):], tag)
			if j < 0 {
				return "", errors.New("unterminated dollar-quoted string")
			}
			i += len(tag) + j + len(tag)
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			words = append(words, strings.ToUpper(q[i:j]))
			i = j
		default:
			i++
		}
	}
	if len(words) == 0 || (words[0] != "SELECT" && words[0] != "WITH") {
		first := "nothing"
		if len(words) > 0 {
			first = words[0]
		}
		return "", fmt.Errorf("only read-only SELECT or WITH queries are allowed, not %s", first)
	}
	for _, w := range words {
		if forbiddenSQL[w] {
			return "", fmt.Errorf("%s is not allowed in a read-only query (quote it if it names a column)", w)
		}
	}
	if end >= 0 {
		q = strings.TrimSpace(q[:end])
	}
	return q, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// dollarQuote returns the opening tag ("$$" or "$tag$") at the start of s,
// or "" when s does not start a dollar-quoted string.
func dollarQuote(s string) string {
	for j := 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '$':
			return s[:j+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9':
		default:
			return ""
		}
	}
	return ""
}

// SQLiteAbsent is the error sql_query gives for an SQLite database in a
// build without the driver: it says how to get one that has it, and the
// route that needs no rebuild.
const SQLiteAbsent = "sql_query: the SQLite driver is not in this build of pakton; " +
	"build it with `go build -tags sqlite ./cmd/pakton`, or configure an SQLite MCP server " +
	"as an external tool (docs/TOOLS.md#sql_query)"
