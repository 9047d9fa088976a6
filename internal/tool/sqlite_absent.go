//go:build !sqlite

package tool

// SQLiteBuilt says whether this build links the SQLite driver of the
// sql_query tool. The driver (modernc.org/sqlite, SQLite transpiled to Go)
// is a large module that takes minutes to compile the first time, for one
// optional tool, so only a build with the sqlite tag links it
// (docs/decisions/0021-sqlite-behind-a-build-tag.md).
const SQLiteBuilt = false
