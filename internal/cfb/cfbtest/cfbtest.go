// Package cfbtest writes small compound files (MS-CFB, version 3) for
// tests: Outlook messages and Word documents built from their streams,
// and damaged files for the reader's tests. Streams under 4,096 bytes go to
// the mini stream, as the format requires; siblings are chained to the
// right rather than balanced, which readers accept.
package cfbtest

import (
	"encoding/binary"
	"sort"
	"unicode/utf16"
)

// Node is a storage (Children set) or a stream (Data).
type Node struct {
	Name     string
	Data     []byte
	Children []*Node
}

// Stream returns a stream node.
func Stream(name string, data []byte) *Node {
	if data == nil {
		data = []byte{}
	}
	return &Node{Name: name, Data: data}
}

// Storage returns a storage node.
func Storage(name string, children ...*Node) *Node {
	return &Node{Name: name, Children: children, Data: nil}
}

const (
	sector     = 512
	endChain   = 0xFFFFFFFE
	freeSect   = 0xFFFFFFFF
	fatSect    = 0xFFFFFFFD
	noStream   = 0xFFFFFFFF
	miniCutoff = 4096
)

type dirEntry struct {
	node               *Node
	typ                byte
	left, right, child uint32
	start              uint32
	size               uint64
}

// Build returns the bytes of a compound file whose root storage holds
// children.
func Build(children ...*Node) []byte {
	root := &Node{Name: "Root Entry", Children: children}
	var dirs []*dirEntry
	var add func(n *Node, isRoot bool) uint32
	add = func(n *Node, isRoot bool) uint32 {
		id := uint32(len(dirs))
		e := &dirEntry{node: n, left: noStream, right: noStream, child: noStream}
		switch {
		case isRoot:
			e.typ = 5
		case n.Data == nil:
			e.typ = 1
		default:
			e.typ = 2
		}
		dirs = append(dirs, e)
		kids := append([]*Node(nil), n.Children...)
		sort.SliceStable(kids, func(i, j int) bool { return less(kids[i].Name, kids[j].Name) })
		var prev *dirEntry
		for _, k := range kids {
			kid := add(k, false)
			if prev == nil {
				e.child = kid
			} else {
				prev.right = kid
			}
			prev = dirs[kid]
		}
		return id
	}
	add(root, true)

	// Streams: small ones into the mini stream, others into sectors.
	var mini []byte
	var miniFAT []uint32
	var big [][]byte
	var bigEntries []*dirEntry
	for _, e := range dirs {
		if e.typ != 2 {
			continue
		}
		e.size = uint64(len(e.node.Data))
		if len(e.node.Data) == 0 {
			e.start = endChain
			continue
		}
		if len(e.node.Data) < miniCutoff {
			e.start = uint32(len(mini) / 64)
			n := (len(e.node.Data) + 63) / 64
			for i := 0; i < n; i++ {
				next := uint32(len(miniFAT) + 1)
				if i == n-1 {
					next = endChain
				}
				miniFAT = append(miniFAT, next)
			}
			mini = append(mini, pad(e.node.Data, 64)...)
			continue
		}
		big = append(big, e.node.Data)
		bigEntries = append(bigEntries, e)
	}

	// Sector layout: FAT sectors, directory, mini FAT, mini stream, big streams.
	var blobs [][]byte // regular-sector contents in order, after the FAT
	dirBytes := make([]byte, 0, 128*len(dirs))
	for range dirs {
		dirBytes = append(dirBytes, make([]byte, 128)...)
	}
	miniFATBytes := make([]byte, 4*len(miniFAT))
	for i, v := range miniFAT {
		binary.LittleEndian.PutUint32(miniFATBytes[4*i:], v)
	}
	blobs = append(blobs, pad(dirBytes, sector))
	if len(miniFAT) > 0 {
		blobs = append(blobs, pad(miniFATBytes, sector))
	}
	if len(mini) > 0 {
		blobs = append(blobs, pad(mini, sector))
	}
	for _, b := range big {
		blobs = append(blobs, pad(b, sector))
	}
	dataSectors := 0
	for _, b := range blobs {
		dataSectors += len(b) / sector
	}
	nFAT := 1
	for (nFAT+dataSectors)*4 > nFAT*sector {
		nFAT++
	}
	fat := make([]uint32, nFAT*sector/4)
	for i := range fat {
		fat[i] = freeSect
	}
	for i := 0; i < nFAT; i++ {
		fat[i] = fatSect
	}
	starts := make([]uint32, len(blobs))
	pos := uint32(nFAT)
	for i, b := range blobs {
		starts[i] = pos
		n := uint32(len(b) / sector)
		for k := uint32(0); k < n; k++ {
			if k == n-1 {
				fat[pos+k] = endChain
			} else {
				fat[pos+k] = pos + k + 1
			}
		}
		pos += n
	}
	k := 1
	miniFATStart, miniStart := uint32(endChain), uint32(endChain)
	if len(miniFAT) > 0 {
		miniFATStart = starts[k]
		k++
	}
	if len(mini) > 0 {
		miniStart = starts[k]
		k++
	}
	for i, e := range bigEntries {
		e.start = starts[k+i]
	}
	dirs[0].start, dirs[0].size = miniStart, uint64(len(mini))
	if len(mini) == 0 {
		dirs[0].start = endChain
	}
	// Directory entries.
	le := binary.LittleEndian
	for i, e := range dirs {
		b := dirBytes[128*i:]
		u := utf16.Encode([]rune(e.node.Name))
		for j, c := range u {
			if j < 31 {
				le.PutUint16(b[2*j:], c)
			}
		}
		le.PutUint16(b[64:], uint16(2*(min(len(u), 31)+1)))
		b[66], b[67] = e.typ, 1
		le.PutUint32(b[68:], e.left)
		le.PutUint32(b[72:], e.right)
		le.PutUint32(b[76:], e.child)
		le.PutUint32(b[116:], e.start)
		le.PutUint64(b[120:], e.size)
	}
	blobs[0] = pad(dirBytes, sector)

	// Header.
	h := make([]byte, 512)
	copy(h, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	le.PutUint16(h[24:], 0x3E)
	le.PutUint16(h[26:], 3)
	le.PutUint16(h[28:], 0xFFFE)
	le.PutUint16(h[30:], 9)
	le.PutUint16(h[32:], 6)
	le.PutUint32(h[44:], uint32(nFAT))
	le.PutUint32(h[48:], starts[0])
	le.PutUint32(h[56:], miniCutoff)
	le.PutUint32(h[60:], miniFATStart)
	le.PutUint32(h[64:], uint32((len(miniFAT)*4+sector-1)/sector))
	le.PutUint32(h[68:], endChain)
	for i := 0; i < 109; i++ {
		v := uint32(freeSect)
		if i < nFAT {
			v = uint32(i)
		}
		le.PutUint32(h[76+4*i:], v)
	}
	out := append([]byte(nil), h...)
	fatBytes := make([]byte, 4*len(fat))
	for i, v := range fat {
		le.PutUint32(fatBytes[4*i:], v)
	}
	out = append(out, fatBytes...)
	for _, b := range blobs {
		out = append(out, b...)
	}
	return out
}

// less orders names as MS-CFB does: shorter first, then by upper case.
func less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	if len(ua) != len(ub) {
		return len(ua) < len(ub)
	}
	for i := range ua {
		x, y := upper(ua[i]), upper(ub[i])
		if x != y {
			return x < y
		}
	}
	return false
}

func upper(c uint16) uint16 {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

func pad(b []byte, n int) []byte {
	if len(b)%n == 0 {
		return b
	}
	return append(append([]byte(nil), b...), make([]byte, n-len(b)%n)...)
}
