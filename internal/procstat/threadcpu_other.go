//go:build !linux

package procstat

import "time"

// ThreadCPU is unknown here (0).
func ThreadCPU() time.Duration { return 0 }
