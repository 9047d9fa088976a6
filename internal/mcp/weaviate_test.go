package mcp

import (
	"testing"

	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateMCPSuite runs this package's MCP tests with their stores on a
// 3-node Weaviate cluster (replication 3).
func TestWeaviateMCPSuite(t *testing.T) { wvtest.RunSuite(t) }
