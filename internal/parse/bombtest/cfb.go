package bombtest

import (
	"encoding/binary"
	"io"
	"unicode/utf16"
)

// A compound file (MS-CFB) written with every pointer of its directory
// given by the caller, so storages can share children, streams can share
// sectors and a storage can reach back to one of its ancestors: the shapes
// a reader must visit once. Version 4 (4 KiB sectors, so large streams fit
// without DIFAT juggling in the caller) with a mini-stream cutoff of one
// byte, so every stream lies in regular sectors.

const (
	cfbSector   = 4096
	cfbEnd      = 0xFFFFFFFE
	cfbFree     = 0xFFFFFFFF
	cfbFATSect  = 0xFFFFFFFD
	cfbDIFSect  = 0xFFFFFFFC
	cfbNone     = 0xFFFFFFFF
	cfbStorage  = 1
	cfbStream   = 2
	cfbRoot     = 5
	cfbPerFAT   = cfbSector / 4
	cfbPerDIFAT = cfbPerFAT - 1
)

// dirent is one directory entry; stream indexes the streams given to
// writeCFB (-1: none). Entries may point at any entry, including
// themselves.
type dirent struct {
	name               string
	typ                byte
	left, right, child uint32
	stream             int
}

// entry returns a directory entry with no siblings or children.
func entry(name string, typ byte, stream int) dirent {
	return dirent{name: name, typ: typ, left: cfbNone, right: cfbNone, child: cfbNone, stream: stream}
}

// writeCFB writes a compound file of dirs (dirs[0] is the root) whose
// stream entries hold streams[d.stream]; entries naming the same stream
// share its sectors.
func writeCFB(w io.Writer, dirs []dirent, streams [][]byte) error {
	sectorsOf := func(n int) int { return (n + cfbSector - 1) / cfbSector }
	nDir := sectorsOf(128 * len(dirs))
	data := 0
	for _, s := range streams {
		data += sectorsOf(len(s))
	}
	nFAT, nDIF := 1, 0
	for {
		total := nFAT + nDIF + nDir + data
		needFAT := (total + cfbPerFAT - 1) / cfbPerFAT
		needDIF := 0
		if needFAT > 109 {
			needDIF = (needFAT - 109 + cfbPerDIFAT - 1) / cfbPerDIFAT
		}
		if needFAT == nFAT && needDIF == nDIF {
			break
		}
		nFAT, nDIF = needFAT, needDIF
	}
	le := binary.LittleEndian
	fat := make([]uint32, nFAT*cfbPerFAT)
	for i := range fat {
		fat[i] = cfbFree
	}
	pos := uint32(0)
	for range nFAT {
		fat[pos] = cfbFATSect
		pos++
	}
	difStart := pos
	for range nDIF {
		fat[pos] = cfbDIFSect
		pos++
	}
	chain := func(n int) uint32 {
		start := pos
		for k := 0; k < n; k++ {
			if k == n-1 {
				fat[pos] = cfbEnd
			} else {
				fat[pos] = pos + 1
			}
			pos++
		}
		if n == 0 {
			return cfbEnd
		}
		return start
	}
	dirStart := chain(nDir)
	starts := make([]uint32, len(streams))
	for i, s := range streams {
		starts[i] = chain(sectorsOf(len(s)))
	}

	h := make([]byte, cfbSector)
	copy(h, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	le.PutUint16(h[24:], 0x3E)
	le.PutUint16(h[26:], 4)
	le.PutUint16(h[28:], 0xFFFE)
	le.PutUint16(h[30:], 12)
	le.PutUint16(h[32:], 6)
	le.PutUint32(h[40:], uint32(nDir))
	le.PutUint32(h[44:], uint32(nFAT))
	le.PutUint32(h[48:], dirStart)
	le.PutUint32(h[56:], 1) // mini-stream cutoff: every stream in regular sectors
	le.PutUint32(h[60:], cfbEnd)
	le.PutUint32(h[68:], cfbEnd)
	if nDIF > 0 {
		le.PutUint32(h[68:], difStart)
	}
	le.PutUint32(h[72:], uint32(nDIF))
	for i := 0; i < 109; i++ {
		v := uint32(cfbFree)
		if i < nFAT {
			v = uint32(i)
		}
		le.PutUint32(h[76+4*i:], v)
	}
	bw := newBuf(w)
	bw.Write(h)
	sec := make([]byte, cfbSector)
	for i := 0; i < nFAT; i++ {
		for k := 0; k < cfbPerFAT; k++ {
			le.PutUint32(sec[4*k:], fat[i*cfbPerFAT+k])
		}
		bw.Write(sec)
	}
	for d := 0; d < nDIF; d++ {
		for k := 0; k < cfbPerDIFAT; k++ {
			v := uint32(cfbFree)
			if f := 109 + d*cfbPerDIFAT + k; f < nFAT {
				v = uint32(f)
			}
			le.PutUint32(sec[4*k:], v)
		}
		next := uint32(cfbEnd)
		if d+1 < nDIF {
			next = difStart + uint32(d+1)
		}
		le.PutUint32(sec[4*cfbPerDIFAT:], next)
		bw.Write(sec)
	}
	dir := make([]byte, nDir*cfbSector)
	for i := range dir {
		dir[i] = 0
	}
	for i, d := range dirs {
		b := dir[128*i:]
		u := utf16.Encode([]rune(d.name))
		if len(u) > 31 {
			u = u[:31]
		}
		for j, c := range u {
			le.PutUint16(b[2*j:], c)
		}
		le.PutUint16(b[64:], uint16(2*(len(u)+1)))
		b[66], b[67] = d.typ, 1
		le.PutUint32(b[68:], d.left)
		le.PutUint32(b[72:], d.right)
		le.PutUint32(b[76:], d.child)
		le.PutUint32(b[116:], cfbEnd)
		if d.stream >= 0 {
			le.PutUint32(b[116:], starts[d.stream])
			le.PutUint64(b[120:], uint64(len(streams[d.stream])))
		}
	}
	for i := len(dirs); i < nDir*cfbSector/128; i++ {
		b := dir[128*i:]
		le.PutUint32(b[68:], cfbNone)
		le.PutUint32(b[72:], cfbNone)
		le.PutUint32(b[76:], cfbNone)
	}
	bw.Write(dir)
	for _, s := range streams {
		bw.Write(s)
		if r := len(s) % cfbSector; r != 0 {
			bw.Write(make([]byte, cfbSector-r))
		}
	}
	return bw.Flush()
}

// siblings links entries ids as a balanced tree of siblings and returns
// its root (cfbNone for none). Readers walk sibling trees only so deep, as
// real files keep them balanced.
func siblings(dirs []dirent, ids []uint32) uint32 {
	if len(ids) == 0 {
		return cfbNone
	}
	m := len(ids) / 2
	dirs[ids[m]].left = siblings(dirs, ids[:m])
	dirs[ids[m]].right = siblings(dirs, ids[m+1:])
	return ids[m]
}
