//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package index

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// mapping is a read-only memory mapping of an index file, with the file
// kept open to read parts of it without mapping them (readAt).
type mapping struct {
	data []byte
	fd   int // the file, open while mapped; -1 when it could not be kept
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
	m := &mapping{data: data, fd: -1}
	if fd, err := syscall.Dup(int(f.Fd())); err == nil {
		syscall.CloseOnExec(fd)
		m.fd = fd
	}
	return m, nil
}

func (m *mapping) unmap() {
	m.once.Do(func() {
		syscall.Munmap(m.data)
		if m.fd >= 0 {
			syscall.Close(m.fd)
		}
	})
}

// readAt reads len(b) bytes of the file at off with pread, leaving the
// mapping alone; false when that failed (read them from the mapping).
func (m *mapping) readAt(b []byte, off int64) bool {
	for len(b) > 0 {
		if m.fd < 0 {
			return false
		}
		n, err := syscall.Pread(m.fd, b, off)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		b, off = b[n:], off+int64(n)
	}
	return true
}

// dontNeed tells the kernel this process no longer needs the mapping's
// pages in memory (MADV_DONTNEED: a shared file mapping's pages stay in the
// page cache and fault in again on the next read).
func (m *mapping) dontNeed() {
	syscall.Madvise(m.data, syscall.MADV_DONTNEED)
}
