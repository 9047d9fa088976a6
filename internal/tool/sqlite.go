//go:build sqlite

package tool

import _ "modernc.org/sqlite" // registers the "sqlite" database/sql driver (pure Go)

// SQLiteBuilt says whether this build links the SQLite driver of the
// sql_query tool: true in a build with the sqlite tag (go build -tags sqlite).
const SQLiteBuilt = true
