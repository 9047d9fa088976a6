//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package index

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// mapping is a read-only memory mapping of an index file.
type mapping struct {
	data []byte
	once sync.Once
}

func mapFile(f *os.File) (*mapping, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size <= 0 || int64(int(size)) != size {
		return nil, fmt.Errorf("%w: size %d", ErrBadIndex, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	return &mapping{data: data}, nil
}

func (m *mapping) unmap() {
	m.once.Do(func() { syscall.Munmap(m.data) })
}

// dontNeed tells the kernel this process no longer needs the mapping's
// pages in memory (MADV_DONTNEED: a shared file mapping's pages stay in the
// page cache and fault in again on the next read).
func (m *mapping) dontNeed() {
	syscall.Madvise(m.data, syscall.MADV_DONTNEED)
}
