package server

import (
	"testing"

	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateAPISuite runs this package's API tests with every test
// server's documents on a 3-node Weaviate cluster (replication 3). The load
// test is left out (it measures the embedded store; see
// internal/store/weaviate's benches for the cluster).
func TestWeaviateAPISuite(t *testing.T) { wvtest.RunSuite(t, "^TestLoad") }
