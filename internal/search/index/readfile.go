package index

import "unsafe"

// A pass over a whole collection that reads scattered postings and units
// (learning word associations: search.WriteAssociations) would map a page
// of the file per value read, and the kernel maps its neighbours with it:
// at 100× CUAD, gigabytes of the process's memory, and releasing them
// (ReleaseMemory) only to map them again costs more system time than
// reading the few bytes wanted. These read an opened segment's postings and
// unit terms from its file instead (pread), leaving the mapping alone; a
// segment built in memory, or a read that fails, is read as usual.

// MappedBytes returns the size of the file an opened segment is mapped
// from (0 for a segment built in memory).
func (s *Segment) MappedBytes() int64 {
	if s.mapped == nil {
		return 0
	}
	return int64(len(s.mapped.data))
}

// ReadPosting returns posting j of term t (both in range: j below
// len(Postings(t))).
func (s *Segment) ReadPosting(t int32, j int) Posting {
	pl := s.Postings(t)
	var p [1]Posting
	readSlice(s, pl[j:j+1], p[:])
	return p[0]
}

// ReadPostings reads postings from, from+1, … of term t into buf, as many
// as fit and the term has, and returns them.
func (s *Segment) ReadPostings(t int32, from int, buf []Posting) []Posting {
	pl := s.Postings(t)
	if from >= len(pl) {
		return buf[:0]
	}
	pl = pl[from:min(len(pl), from+len(buf))]
	buf = buf[:len(pl)]
	readSlice(s, pl, buf)
	return buf
}

// ReadUnitTerms returns UnitTerms(u), read into buf (grown as needed).
func (s *Segment) ReadUnitTerms(u int32, buf []int32) []int32 {
	l := s.UnitTerms(u)
	if cap(buf) < len(l) {
		buf = make([]int32, len(l), len(l)+len(l)/2)
	}
	buf = buf[:len(l)]
	readSlice(s, l, buf)
	return buf
}

// readSlice copies sec, a slice of s's mapping (or of memory), into dst of
// the same length, reading the file when s is mapped.
func readSlice[T any](s *Segment, sec, dst []T) {
	if len(sec) == 0 {
		return
	}
	if m := s.mapped; m != nil && len(m.data) > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
		at := uintptr(unsafe.Pointer(unsafe.SliceData(sec)))
		size := uintptr(len(sec)) * unsafe.Sizeof(sec[0])
		if at >= base && at+size <= base+uintptr(len(m.data)) && m.readAt(asBytes(dst), int64(at-base)) {
			return
		}
	}
	copy(dst, sec)
}
