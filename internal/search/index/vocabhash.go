package index

// The vocabulary of an index file is a hash table written with it, so
// opening the file does not insert every term into a map. Open addressing
// with linear probing; a slot holds term id + 1, 0 when empty; the table has
// a power-of-two size at least twice the vocabulary.

// termHash is 32-bit FNV-1a: fixed across processes and machines, as a
// table written by one process is read by another.
func termHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// vocabTable builds the hash table of terms (ids are their positions).
func vocabTable(terms []string) []int32 {
	size := 8
	for size < 2*len(terms) {
		size *= 2
	}
	slots := make([]int32, size)
	mask := uint32(size - 1)
	for tid, t := range terms {
		for i := termHash(t) & mask; ; i = (i + 1) & mask {
			if slots[i] == 0 {
				slots[i] = int32(tid) + 1
				break
			}
		}
	}
	return slots
}

// lookupHash finds t in a table built by vocabTable. The table comes from an
// unchecksummed part of the file: a slot naming a term that does not exist
// is skipped, and the probe stops after one pass over the table, so a
// damaged table can lose a word, never crash or loop.
func lookupHash(slots []int32, terms []string, t string) (int32, bool) {
	n := len(slots)
	if n == 0 || n&(n-1) != 0 {
		return 0, false
	}
	mask := uint32(n - 1)
	i := termHash(t) & mask
	for range n {
		s := slots[i]
		if s == 0 {
			return 0, false
		}
		if tid := s - 1; tid >= 0 && int(tid) < len(terms) && terms[tid] == t {
			return tid, true
		}
		i = (i + 1) & mask
	}
	return 0, false
}
