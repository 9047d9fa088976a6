//go:build !linux

package parse

import "github.com/tetratelabs/wazero/experimental"

// pdfiumMemory is a linear memory in the Go heap, limited to limit bytes.
type pdfiumMemory struct {
	heap  []byte
	limit uint64
}

func newPDFiumMemory(limit uint64) experimental.LinearMemory {
	return &pdfiumMemory{limit: limit}
}

// Reallocate implements experimental.LinearMemory.
func (m *pdfiumMemory) Reallocate(size uint64) []byte {
	if size > m.limit {
		return nil
	}
	return growHeapMemory(&m.heap, size)
}

// Free implements experimental.LinearMemory.
func (m *pdfiumMemory) Free() {
	pdfiumLiveBytes.Add(-int64(len(m.heap)))
	m.heap = nil
}
