package unpack

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Limits bound what one archive may expand to. The zero value means the
// defaults below.
type Limits struct {
	// Entry is the largest expanded entry (default 256 MiB, the size of
	// the largest file pakton reads).
	Entry int64
	// Total is the most bytes all entries of one archive, nested archives
	// included, may expand to (default 8 GiB).
	Total int64
	// Entries is the most entries one archive may list (default 100,000).
	Entries int
	// Ratio is the highest expansion ratio of an entry larger than 1 MiB
	// (default 1,000: deflate's best is about 1,032, reached only by
	// crafted data; real documents stay below 100).
	Ratio float64
	// Depth is how many archives deep nesting may go (default 4).
	Depth int
}

// DefaultLimits returns the default limits, with the per-entry limit set to
// entry when it is positive.
func DefaultLimits(entry int64) Limits {
	return Limits{Entry: entry}.orDefault()
}

func (l Limits) orDefault() Limits {
	if l.Entry <= 0 {
		l.Entry = 256 << 20
	}
	if l.Total <= 0 {
		l.Total = 8 << 30
	}
	if l.Entries <= 0 {
		l.Entries = 100_000
	}
	if l.Ratio <= 0 {
		l.Ratio = 1000
	}
	if l.Depth <= 0 {
		l.Depth = 4
	}
	return l
}

// ErrArchive is wrapped by errors about an archive as a whole (not a ZIP
// file, an unreadable directory); ErrRefused by an entry's refusal.
var (
	ErrArchive = errors.New("cannot read the archive")
	ErrRefused = errors.New("entry refused")
	ErrBomb    = errors.New("zip bomb")
)

// Entry is one file of an archive.
type Entry struct {
	// Name is the entry's cleaned path inside the archive ("01 Corporate/
	// 1.1 Supply Agreement.rtf"), or its raw name made printable when it
	// was refused.
	Name string
	// Size is the expanded size the archive declares.
	Size int64
	// Modified is the entry's modification time as the archive records it.
	Modified time.Time
	// Refused, when set, is why the entry is not read (traversal, an
	// absolute path, a symbolic link, encryption, a compression method
	// pakton cannot read, a zip bomb, a name trick, a duplicate name).
	Refused string
	f       *zip.File
}

// Archive is an open ZIP archive.
type Archive struct {
	Entries []Entry // files in archive order; directories and system clutter left out
	limits  Limits
	mu      sync.Mutex
	read    int64 // bytes expanded so far; entries may be read from several goroutines
}

// OpenZip lists the entries of the ZIP archive in r (size bytes), deciding
// for each whether it may be read. Only an archive that cannot be listed
// at all is an error.
func OpenZip(r io.ReaderAt, size int64, lim Limits) (*Archive, error) {
	lim = lim.orDefault()
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		if errors.Is(err, zip.ErrFormat) {
			return nil, fmt.Errorf("%w: not a ZIP archive or damaged (%v)", ErrArchive, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrArchive, err)
	}
	if len(zr.File) > lim.Entries {
		return nil, fmt.Errorf("%w: %d entries, more than the %d pakton reads from one archive", ErrArchive, len(zr.File), lim.Entries)
	}
	a := &Archive{limits: lim}
	taken := map[string]string{}
	type span struct {
		start, end int64
		idx        int
	}
	var spans []span
	for _, f := range zr.File {
		raw := entryName(f)
		if strings.HasSuffix(raw, "/") || strings.HasSuffix(raw, "\\") {
			if f.Mode()&fs.ModeSymlink == 0 {
				continue // a directory
			}
		}
		e := Entry{Name: printable(raw), Size: int64(f.UncompressedSize64), Modified: f.Modified, f: f}
		name, err := CleanName(raw)
		switch {
		case err != nil:
			e.Refused = err.Error()
		case junk(name):
			continue
		case f.Mode()&fs.ModeSymlink != 0:
			e.Name, e.Refused = name, "symbolic link (links are not followed)"
		case f.Mode().IsDir():
			continue
		case f.Flags&0x1 != 0 || f.Method == 99:
			e.Name, e.Refused = name, "encrypted (password-protected) entry; extract it with its password and ingest the file"
		case f.Method != zip.Store && f.Method != zip.Deflate:
			e.Name, e.Refused = name, fmt.Sprintf("compressed with method %d (%s), which pakton cannot read; re-create the archive with ordinary (deflate) compression", f.Method, methodName(f.Method))
		case f.UncompressedSize64 > uint64(lim.Entry):
			e.Name, e.Refused = name, fmt.Sprintf("expands to %d bytes, more than the limit of %d per file", f.UncompressedSize64, lim.Entry)
		case f.UncompressedSize64 > 1<<20 && float64(f.UncompressedSize64) > lim.Ratio*float64(max(f.CompressedSize64, 1)):
			e.Name, e.Refused = name, fmt.Sprintf("%v: expands %d bytes to %d (ratio over %.0f)", ErrBomb, f.CompressedSize64, f.UncompressedSize64, lim.Ratio)
		default:
			e.Name = name
			if first, ok := taken[strings.ToLower(name)]; ok {
				e.Refused = fmt.Sprintf("the archive holds another entry named %q already (names that differ only in case or Unicode form are the same document)", first)
			} else {
				taken[strings.ToLower(name)] = name
			}
		}
		if e.Refused == "" {
			if off, err := f.DataOffset(); err == nil {
				spans = append(spans, span{off, off + int64(f.CompressedSize64), len(a.Entries)})
			}
		}
		a.Entries = append(a.Entries, e)
	}
	// Entries whose data overlap share their compressed bytes: a bomb that
	// expands one small stream many times over (an honest archive never
	// does this). Every entry of an overlapping group is refused.
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end && spans[i].end > spans[i].start {
			for _, k := range []int{spans[i-1].idx, spans[i].idx} {
				a.Entries[k].Refused = fmt.Sprintf("%v: its data overlaps another entry's", ErrBomb)
			}
		}
	}
	return a, nil
}

func methodName(m uint16) string {
	switch m {
	case 9:
		return "Deflate64"
	case 12:
		return "bzip2"
	case 14:
		return "LZMA"
	case 93:
		return "Zstandard"
	case 95:
		return "XZ"
	case 98:
		return "PPMd"
	}
	return "unknown"
}

// entryName decodes an entry's name: UTF-8 when it is valid UTF-8 (whether
// or not the archiver set the UTF-8 flag, which many do not), else the
// Info-ZIP Unicode path field when present and current, else code page
// 437, the ZIP format's original encoding.
func entryName(f *zip.File) string {
	if utf8.ValidString(f.Name) {
		return f.Name
	}
	if f.Flags&0x800 != 0 {
		return f.Name // declared UTF-8 but invalid: CleanName refuses it
	}
	if u, ok := unicodePathField(f.Extra, f.Name); ok {
		return u
	}
	s, err := charmap.CodePage437.NewDecoder().String(f.Name)
	if err != nil {
		return f.Name
	}
	return s
}

// unicodePathField reads the Info-ZIP Unicode Path extra field (0x7075),
// valid when its CRC-32 matches the raw name.
func unicodePathField(extra []byte, raw string) (string, bool) {
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return "", false
		}
		body := extra[4 : 4+n]
		if id == 0x7075 && n >= 5 && body[0] == 1 && binary.LittleEndian.Uint32(body[1:]) == crc32.ChecksumIEEE([]byte(raw)) {
			u := string(body[5:])
			return u, utf8.ValidString(u)
		}
		extra = extra[4+n:]
	}
	return "", false
}

// printable makes a refused raw name safe to show.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if _, bad := trickRune(string(r)); bad {
			return '\uFFFD'
		}
		return r
	}, s)
}

// Read expands entry e, bounded by the per-entry and per-archive limits
// whatever the archive declares. The CRC is checked.
func (a *Archive) Read(e Entry) ([]byte, error) {
	if e.Refused != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, e.Refused)
	}
	a.mu.Lock()
	limit := min(a.limits.Entry, a.limits.Total-a.read)
	a.mu.Unlock()
	if limit <= 0 {
		return nil, fmt.Errorf("%w: the archive expands to more than %d bytes in all", ErrBomb, a.limits.Total)
	}
	rc, err := e.f.Open()
	if err != nil {
		return nil, fmt.Errorf("cannot open the entry: %w", err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(int64(e.f.UncompressedSize64), limit, 64<<20)))
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	a.mu.Lock()
	a.read += n
	a.mu.Unlock()
	if n > limit {
		if limit < a.limits.Entry {
			return nil, fmt.Errorf("%w: the archive expands to more than %d bytes in all", ErrBomb, a.limits.Total)
		}
		return nil, fmt.Errorf("%w: the entry expands beyond %d bytes although it declares %d", ErrBomb, a.limits.Entry, e.f.UncompressedSize64)
	}
	if err != nil {
		return nil, fmt.Errorf("damaged entry: %w", err)
	}
	return buf.Bytes(), nil
}

// Limits returns the archive's limits, for nested archives: their total
// is what this archive has left.
func (a *Archive) Limits() Limits {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.limits
	l.Total -= a.read
	l.Depth--
	return l
}
