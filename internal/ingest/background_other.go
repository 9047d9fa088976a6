//go:build !linux

package ingest

// lowerPriority does nothing where threads have no priority of their own.
func lowerPriority(nice int) {}
