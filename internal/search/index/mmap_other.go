//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package index

import (
	"io"
	"os"
)

// mapping holds an index file read into memory where mmap is not available.
type mapping struct{ data []byte }

func mapFile(f *os.File) (*mapping, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	// The sections hold 8-byte values: copy into memory aligned for them.
	words := make([]uint64, (len(data)+7)/8)
	buf := asBytes(words)[:len(data)]
	copy(buf, data)
	return &mapping{data: buf}, nil
}

func (m *mapping) unmap() {}

func (m *mapping) dontNeed() {}

// readAt reports that the file is in memory: read it from data.
func (m *mapping) readAt([]byte, int64) bool { return false }
