package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/internal/atomicfile"
)

// A collection's checkpoint (checkpointName, beside its log) lets a reader
// open a large collection without reading and checking its whole log: it
// lists the live documents as of a prefix of the log (each one's version
// directory, the place of its record in the log and its source's SHA-256,
// which writers look documents up by),
// and the reader reads the log only after that prefix. A record's JSON is
// read from the log, and its checksum checked, when the document is first
// used.
//
// The log stays the only truth: a checkpoint is written (replaced
// atomically, fsynced) by writers once the log has grown past it, and a
// reader uses it only when it still describes the log it opened — the same
// header record (a compacted or recreated log starts with another
// generation) and the same bytes just before the end of the prefix (their
// checksum) — and it is whole (its own checksum). Otherwise, or when it is
// missing, the whole log is read as before. It never hides a record: every
// record after the prefix is applied on top of it.
//
// Layout, integers little-endian:
//
//	magic "PKMCKPT1"
//	u64 covered (bytes of the log it describes), u64 generation, u64 records
//	u32 n, the log's header record (n bytes, with its newline)
//	u32 k, u32 CRC-32C of the log's k bytes before covered
//	u32 count, then per document: u16 n, directory "<id>@<rev>" (n bytes);
//	    u64 offset and u32 length of its record in the log;
//	    u8 n, source SHA-256 (n = 32 bytes, or 0 when unknown)
//	u32 CRC-32C of everything before
const checkpointName = "manifest.ckpt"

const checkpointMagic = "PKMCKPT1"

// checkpointTailCheck is how many bytes before the end of the covered
// prefix a reader compares with the checkpoint's checksum of them.
const checkpointTailCheck = 4096

// A writer checkpoints a log of at least checkpointMinLog bytes once at
// least checkpointMinTail bytes, and a sixteenth of the log, were appended
// since the last checkpoint: a reader then reads at most that much of the
// log, and the checkpoints written while a log grows add up to a few times
// its final checkpoint. (Variables so tests can checkpoint small logs.)
var (
	checkpointMinLog  int64 = 256 << 10
	checkpointMinTail int64 = 64 << 10
)

// logSource reads the records of checkpointed entries from the log file the
// checkpoint was checked against (an open descriptor of its own, closed
// when no entry needs it any more: a compaction that replaces the log does
// not change what it reads).
type logSource struct {
	f *os.File
}

// record reads l's record and returns its JSON, after checking that it is
// whole and is the record the checkpoint said.
func (src *logSource) record(l *lazyEntry) ([]byte, error) {
	if l.n < 2 {
		return nil, errors.New("no record")
	}
	buf := make([]byte, l.n)
	if _, err := src.f.ReadAt(buf, l.off); err != nil {
		return nil, err
	}
	if buf[len(buf)-1] != '\n' {
		return nil, errors.New("record not where the checkpoint says")
	}
	op, gen, id, body, err := parseLine(buf[:len(buf)-1])
	if err != nil {
		return nil, err
	}
	if op != opSnapshot && op != opPut || versionDir(string(id), gen) != l.dir {
		return nil, errors.New("record not where the checkpoint says")
	}
	return body[:len(body):len(body)], nil
}

// maybeCheckpoint writes a collection's checkpoint when its log has grown
// enough past the last one. A failure is only logged: the log is the truth
// and stays readable without it. Called with the write lock held.
func (s *Store) maybeCheckpoint(collection string) {
	if s.readOnly {
		return
	}
	cs, err := s.state(collection)
	if err != nil || cs.m == nil {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.f == nil || cs.off < checkpointMinLog || cs.off-cs.ckpt < max(checkpointMinTail, cs.off/16) {
		return
	}
	if err := writeCheckpoint(s.collectionDir(collection), cs.f, cs.m, cs.off); err != nil {
		slog.Warn("store: could not write the manifest checkpoint", "collection", collection, "err", err)
		return
	}
	cs.ckpt = cs.off
}

// writeCheckpoint writes the checkpoint of m, the state of log f's first
// covered bytes, in directory dir.
func writeCheckpoint(dir string, f *os.File, m *manifest, covered int64) error {
	if err := fault("checkpoint"); err != nil {
		return err
	}
	out := make([]byte, 0, 4096+64+len(m.Docs)*(len("id@1")+32+64))
	out = append(out, checkpointMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(covered))
	out = binary.LittleEndian.AppendUint64(out, m.Generation)
	out = binary.LittleEndian.AppendUint64(out, uint64(m.records))
	out, err := appendLogMark(out, f, covered)
	if err != nil {
		return err
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.Docs)))
	for _, l := range m.Docs {
		if l.off < 0 || l.n <= 0 || l.off+int64(l.n) > covered || len(l.dir) > 0xffff {
			return fmt.Errorf("document directory %q: no record to point at", l.dir)
		}
		sha, err := hex.DecodeString(l.sourceSHA())
		if err != nil || len(sha) != sha256.Size {
			sha = nil
		}
		out = binary.LittleEndian.AppendUint16(out, uint16(len(l.dir)))
		out = append(out, l.dir...)
		out = binary.LittleEndian.AppendUint64(out, uint64(l.off))
		out = binary.LittleEndian.AppendUint32(out, uint32(l.n))
		out = append(out, byte(len(sha)))
		out = append(out, sha...)
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crcTable))
	return atomicfile.Write(filepath.Join(dir, checkpointName), out, 0o644)
}

// appendLogMark appends to out what tells log f's first covered bytes from
// any other log's: its header record, and a checksum of the
// checkpointTailCheck bytes that end them.
func appendLogMark(out []byte, f *os.File, covered int64) ([]byte, error) {
	head, err := headerLine(f, covered)
	if err != nil {
		return nil, err
	}
	k := min(covered, checkpointTailCheck)
	end := make([]byte, k)
	if _, err := f.ReadAt(end, covered-k); err != nil {
		return nil, err
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(head)))
	out = append(out, head...)
	out = binary.LittleEndian.AppendUint32(out, uint32(k))
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(end, crcTable)), nil
}

// readLogMark reads from r a mark appendLogMark wrote for covered bytes and
// reports whether log f (size bytes) starts with bytes it describes; it
// returns the header record the mark holds.
func readLogMark(r *ckptReader, f *os.File, covered, size int64) ([]byte, bool) {
	head := r.bytes(int(r.u32()))
	k := int64(r.u32())
	endCRC := r.u32()
	if r.bad || covered <= 0 || covered > size || k > covered || len(head) == 0 {
		return nil, false
	}
	got := make([]byte, len(head))
	if _, err := f.ReadAt(got, 0); err != nil || !bytes.Equal(got, head) {
		return nil, false
	}
	end := make([]byte, k)
	if _, err := f.ReadAt(end, covered-k); err != nil || crc32.Checksum(end, crcTable) != endCRC {
		return nil, false
	}
	return head, true
}

// headerLine returns the first record of log f (with its newline), which
// must end within its first limit bytes.
func headerLine(f *os.File, limit int64) ([]byte, error) {
	buf := make([]byte, min(limit, 4096))
	n, err := f.ReadAt(buf, 0)
	if n == 0 && err != nil {
		return nil, err
	}
	nl := bytes.IndexByte(buf[:n], '\n')
	if nl < 0 {
		return nil, errors.New("no header record")
	}
	return buf[:nl+1], nil
}

// readCheckpoint returns the state described by the checkpoint in dir and
// how much of log f (size bytes) it covers, when there is a whole one that
// describes f.
func readCheckpoint(dir string, f *os.File, size int64) (*manifest, int64, bool) {
	data, err := os.ReadFile(filepath.Join(dir, checkpointName))
	if err != nil || len(data) < len(checkpointMagic)+4 || string(data[:len(checkpointMagic)]) != checkpointMagic {
		return nil, 0, false
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, 0, false
	}
	r := ckptReader{b: body[len(checkpointMagic):]}
	covered := int64(r.u64())
	gen := r.u64()
	records := r.u64()
	// The log must be the one the checkpoint was written from.
	head, ok := readLogMark(&r, f, covered, size)
	count := int(r.u32())
	if !ok || r.bad {
		return nil, 0, false
	}
	var m *manifest
	if err := applyLine(&m, head[:len(head)-1], 0); err != nil || m == nil || gen < m.Generation {
		return nil, 0, false
	}
	if count < 0 || count > len(r.b)/15 {
		return nil, 0, false
	}
	// One string holds every directory and SHA-256 (the map keys are
	// pieces of the directories), one slice every entry.
	text := string(r.b)
	src := &logSource{}
	ents := make([]lazyEntry, count)
	m.Docs = make(map[string]*lazyEntry, count)
	for i := range ents {
		at := len(text) - len(r.b) // where r is in text
		n := int(r.u16())
		r.bytes(n)
		off := int64(r.u64())
		ln := r.u32()
		sn := int(r.u8())
		r.bytes(sn)
		if r.bad || sn != 0 && sn != sha256.Size {
			return nil, 0, false
		}
		dir := text[at+2 : at+2+n]
		shaAt := at + 2 + n + 8 + 4 + 1
		// The checkpoint's checksum vouches for what its writer took from
		// a checked log; the record itself is checked when read.
		k := strings.LastIndexByte(dir, '@')
		if k <= 0 || ln < 2 || ln > 1<<31-1 || off < 0 || off+int64(ln) > covered {
			return nil, 0, false
		}
		ents[i] = lazyEntry{dir: dir, off: off, n: int32(ln), src: src, sha: text[shaAt : shaAt+sn]}
		m.Docs[dir[:k]] = &ents[i]
	}
	if len(m.Docs) != count { // an id twice
		return nil, 0, false
	}
	if len(r.b) != 0 || records < uint64(count) {
		return nil, 0, false
	}
	// The entries read their records through a descriptor of their own,
	// of the same file: the caller's is closed when the state is dropped.
	g, err := os.Open(f.Name())
	if err != nil {
		return nil, 0, false
	}
	gi, err1 := g.Stat()
	fi, err2 := f.Stat()
	if err1 != nil || err2 != nil || !os.SameFile(gi, fi) {
		g.Close()
		return nil, 0, false
	}
	src.f = g
	m.Generation = gen
	m.records = int(records)
	return m, covered, true
}

// ckptReader reads a checkpoint's fields; bad is set once one runs past
// the end.
type ckptReader struct {
	b   []byte
	bad bool
}

func (r *ckptReader) bytes(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.bad = true
		r.b = nil
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *ckptReader) u8() uint8 {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *ckptReader) u16() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *ckptReader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *ckptReader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
