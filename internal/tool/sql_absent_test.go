//go:build !sqlite

package tool

import (
	"context"
	"strings"
	"testing"
)

// TestSQLiteAbsent: a build without the sqlite tag refuses an SQLite
// database with an error that names the tag and the MCP route, whether the
// tool is configured directly or through External.
func TestSQLiteAbsent(t *testing.T) {
	for _, drv := range []string{"", "sqlite", "SQLite3"} {
		_, err := OpenSQL(context.Background(), SQLConfig{Driver: drv, DSN: "/data/c.db"})
		if err == nil || err.Error() != SQLiteAbsent {
			t.Errorf("driver %q: err = %v", drv, err)
		}
	}
	tools, closeFn, err := External(context.Background(), ExternalConfig{SQL: &SQLConfig{DSN: "/data/c.db"}})
	if err == nil || !strings.Contains(err.Error(), "-tags sqlite") || tools != nil || closeFn == nil {
		t.Errorf("External: tools %v, err %v", tools, err)
	}
}
