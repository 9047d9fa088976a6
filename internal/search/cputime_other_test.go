//go:build !linux

package search

import "time"

var processStart = time.Now()

// processCPU stands in for the process's CPU time where it is not read
// (elsewhere than Linux): the time since the tests started.
func processCPU() time.Duration { return time.Since(processStart) }
