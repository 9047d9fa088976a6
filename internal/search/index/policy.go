package index

import "math"

// MergePolicy decides which adjacent segments of a commit to merge, so the
// number of segments a search visits stays bounded as a collection grows
// one batch at a time, while each document is rewritten only a few times
// (log-structured, as Lucene's LogMergePolicy: segments are grouped in
// levels of size, Factor times apart, and Factor adjacent segments of one
// level or below become one of the next).
type MergePolicy struct {
	// Factor is how many adjacent segments are merged at once, and the
	// ratio of sizes between levels.
	Factor int
	// MinUnits is the size (live units) of the lowest level: smaller
	// segments count as this large.
	MinUnits int
	// MaxUnits bounds a merged segment: larger merges are not made, so a
	// huge collection is several large segments (which app servers may
	// split between them) rather than one ever-rewritten file.
	MaxUnits int
	// MaxDeleted is the share of deleted documents past which a segment is
	// rewritten without them.
	MaxDeleted float64
}

// DefaultMergePolicy is the policy of pakton's collections: at most about
// 8 segments per level; merged segments of at most 4 M units (about 12,000
// contracts of CUAD's length).
var DefaultMergePolicy = MergePolicy{Factor: 8, MinUnits: 1 << 16, MaxUnits: 1 << 22, MaxDeleted: 0.25}

func (p MergePolicy) level(units int) int {
	return int(math.Floor(math.Log(float64(max(units, p.MinUnits))/float64(p.MinUnits)) / math.Log(float64(p.Factor))))
}

// Pick returns the segments of c to merge next (adjacent, in order), or
// nil when none should be. Windows of Factor adjacent segments at the
// lowest level come first (the cheapest merges); a segment with too many
// deleted documents is rewritten alone. A window where one segment holds
// more than half the units is not merged: that merge would rewrite the
// large segment to absorb a few small ones (adding one document to a
// collection made of one large segment and six small ones rewrote the
// whole collection), so a document is rewritten only into a segment at
// least twice its own's size, at most log2(collection) times; the small
// ones wait for a window of their own.
func (p MergePolicy) Pick(c Commit) []string {
	segs := c.Segments
	for _, s := range segs {
		if s.Docs > 0 && float64(len(s.Deleted)) >= p.MaxDeleted*float64(s.Docs) {
			return []string{s.Name}
		}
	}
	if len(segs) < p.Factor {
		return nil
	}
	levels := make([]int, len(segs))
	top := 0
	for i, s := range segs {
		levels[i] = p.level(s.LiveUnits())
		top = max(top, levels[i])
	}
	for l := 0; l <= top; l++ {
		for i := 0; i+p.Factor <= len(segs); i++ {
			ok, total, biggest := true, 0, 0
			for _, s := range segs[i : i+p.Factor] {
				total += s.LiveUnits()
				biggest = max(biggest, s.LiveUnits())
			}
			if 2*biggest > total {
				ok = false
			}
			for _, lv := range levels[i : i+p.Factor] {
				if lv > l {
					ok = false
				}
			}
			if ok && total <= p.MaxUnits {
				out := make([]string, 0, p.Factor)
				for _, s := range segs[i : i+p.Factor] {
					out = append(out, s.Name)
				}
				return out
			}
		}
	}
	return nil
}
