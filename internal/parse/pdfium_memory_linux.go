//go:build linux

package parse

import (
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
)

// pdfiumMemory is a linear memory backed by one anonymous mapping of its
// maximum size.
type pdfiumMemory struct {
	mapped []byte // the whole reservation
	size   uint64 // bytes handed out
	heap   []byte // fallback when mapping failed
	limit  uint64
	// refused is set when a grow past limit was refused.
	refused atomic.Bool
}

func newPDFiumMemory(limit uint64) experimental.LinearMemory {
	m := &pdfiumMemory{limit: limit}
	if limit > 0 {
		b, err := syscall.Mmap(-1, 0, int(limit), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err == nil {
			m.mapped = b
			pdfiumMemories.Store(uintptr(unsafe.Pointer(&b[0])), &m.refused)
		}
	}
	return m
}

// Reallocate implements experimental.LinearMemory.
func (m *pdfiumMemory) Reallocate(size uint64) []byte {
	if size > m.limit {
		m.refused.Store(true)
		return nil
	}
	if m.mapped == nil {
		return growHeapMemory(&m.heap, size)
	}
	pdfiumLiveBytes.Add(int64(size) - int64(m.size))
	m.size = size
	return m.mapped[:size:size]
}

// Free implements experimental.LinearMemory: the pages go back now, the
// address range after a grace period (see releaseLater).
func (m *pdfiumMemory) Free() {
	pdfiumLiveBytes.Add(-int64(len(m.heap)) - int64(m.size))
	m.heap, m.size = nil, 0
	b := m.mapped
	if b == nil {
		return
	}
	m.mapped = nil
	pdfiumMemories.Delete(uintptr(unsafe.Pointer(&b[0])))
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	releaseLater(func() { _ = syscall.Munmap(b) })
}
