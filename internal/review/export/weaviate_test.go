package export

import (
	"testing"

	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateExportSuite runs the export tests with their store on a
// 3-node Weaviate cluster (replication 3).
func TestWeaviateExportSuite(t *testing.T) { wvtest.RunSuite(t) }
