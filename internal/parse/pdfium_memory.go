package parse

// Bounding pdfium's memory.
//
// pdfium runs as WebAssembly, so everything it allocates lives in one
// linear memory per worker. wazero grows that memory on request and never
// shrinks it; by default it is a Go slice that doubles by copying, with no
// limit short of 4 GiB. A 60 KB PDF with two million text operations, or a
// content stream that inflates to a gigabyte, drove a worker past 3 GB and
// the reused worker kept it.
//
// Each worker's linear memory is therefore backed by pdfiumMemory: one
// reservation of the limit's size made up front (virtual address space
// only; pages cost memory when pdfium touches them), handed out by
// re-slicing, so growing never copies. A grow past the limit fails, pdfium
// aborts, and the file gets ErrTooLarge. When a worker is closed its pages
// go back to the operating system at once; the address range itself is
// released a little later, because a worker killed on a deadline may still
// be executing for a moment and must not touch unmapped memory.

import (
	"context"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// DefaultPDFMemory is the default limit on pdfium's memory for one PDF
// (bytes). The environment variable PAKTON_PDF_MEMORY_MB overrides it.
const DefaultPDFMemory = 256 << 20

// pdfiumKeepBelow is the size under which a worker's memory is kept for the
// next PDF; a worker that grew larger is closed so its memory is returned.
const pdfiumKeepBelow = 64 << 20

// pdfMemoryLimit returns the per-PDF memory limit in bytes, rounded down to
// whole WebAssembly pages.
func pdfMemoryLimit() uint64 {
	limit := uint64(DefaultPDFMemory)
	if s := os.Getenv("PAKTON_PDF_MEMORY_MB"); s != "" {
		if mb, err := strconv.ParseUint(s, 10, 32); err == nil && mb >= 64 && mb <= 4095 {
			limit = mb << 20
		}
	}
	return limit &^ (1<<16 - 1)
}

// pdfiumMemories maps the base address of each mapped linear memory to its
// refused flag, so withPDFium can tell a worker that ran out of memory from
// one that met a corrupt file.
var pdfiumMemories sync.Map // uintptr -> *atomic.Bool

// pdfiumLiveBytes is the memory all pdfium workers hold, in bytes.
var pdfiumLiveBytes atomic.Int64

// pdfiumAllocator backs each worker's linear memory with a reservation of
// limit bytes.
type pdfiumAllocator struct{ limit uint64 }

// Allocate implements experimental.MemoryAllocator.
func (a pdfiumAllocator) Allocate(_, max uint64) experimental.LinearMemory {
	return newPDFiumMemory(min(max, a.limit))
}

// withPDFiumAllocator returns ctx carrying the allocator that limits every
// pdfium worker's memory to limit bytes.
func withPDFiumAllocator(ctx context.Context, limit uint64) context.Context {
	return experimental.WithMemoryAllocator(ctx, pdfiumAllocator{limit: limit})
}

// pdfiumWorkerMemory reports the size of a worker's linear memory (-1 when
// it cannot be read) and whether a grow past the limit was refused. impl is
// the worker's implementation (pdfium.Pdfium.GetImplementation), whose
// exported Module field is the wazero module.
func pdfiumWorkerMemory(impl any) (size int64, refused bool) {
	v := reflect.ValueOf(impl)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return -1, false
	}
	f := v.Elem().FieldByName("Module")
	if !f.IsValid() || !f.CanInterface() {
		return -1, false
	}
	mod, ok := f.Interface().(api.Module)
	if !ok || mod == nil {
		return -1, false
	}
	mem := mod.Memory()
	if mem == nil {
		return -1, false
	}
	size = int64(mem.Size())
	if b, ok := mem.Read(0, 1); ok {
		if flag, ok := pdfiumMemories.Load(uintptr(unsafe.Pointer(&b[0]))); ok {
			refused = flag.(*atomic.Bool).Load()
		}
	}
	return size, refused
}

// releaseLater runs release after a grace period long enough for a killed
// worker to have stopped executing.
func releaseLater(release func()) {
	time.AfterFunc(time.Minute, release)
}

// pdfiumWorkers is the number of PDFs pdfium reads at once: one per core,
// but never so many that their memory limits together pass 1 GiB (at
// least one).
func pdfiumWorkers(limit uint64) int {
	return max(1, min(runtime.NumCPU(), int((1<<30)/limit)))
}

// growHeapMemory grows a Go-heap linear memory to size bytes, keeping its
// contents.
func growHeapMemory(buf *[]byte, size uint64) []byte {
	b := *buf
	pdfiumLiveBytes.Add(int64(size) - int64(len(b)))
	if uint64(cap(b)) < size {
		nb := make([]byte, size, max(size, uint64(cap(b))*5/4))
		copy(nb, b)
		b = nb
	}
	*buf = b[:size]
	return *buf
}
