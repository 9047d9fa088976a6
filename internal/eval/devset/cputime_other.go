//go:build !linux

package devset

import "time"

var processStart = time.Now()

// ProcessCPU stands in for the process's CPU time where it is not read
// (elsewhere than Linux): the time since the process started.
func ProcessCPU() time.Duration { return time.Since(processStart) }
