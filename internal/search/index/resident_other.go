//go:build !linux

package index

// MappedResident reports the bytes of file pages this process holds mapped;
// it is known on Linux only.
func MappedResident() (int64, bool) { return 0, false }
