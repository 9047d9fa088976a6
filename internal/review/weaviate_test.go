package review

import (
	"testing"

	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateReviewSuite runs this package's review tests with their
// stores on a 3-node Weaviate cluster (replication 3). The test that
// damages a stored file on disk is left out: a cluster store has no such
// file (its checksums are tested in internal/store).
func TestWeaviateReviewSuite(t *testing.T) { wvtest.RunSuite(t, "^TestRunUnreadableDocument$") }
