package store

import "context"

// Batch puts records into one collection Size at a time (PutBatch): ingest
// of an eval corpus, pakton migrate. After each batch it calls Flushed, when
// set, with the number of records put so far. Not safe for concurrent use.
type Batch struct {
	Store      *Store
	Collection string
	Size       int
	Flushed    func(put int)

	recs []*Record
	put  int
}

// Add queues rec and puts the queued records once there are Size of them.
func (b *Batch) Add(ctx context.Context, rec *Record) error {
	b.recs = append(b.recs, rec)
	if len(b.recs) >= b.Size {
		return b.Flush(ctx)
	}
	return nil
}

// Flush puts the queued records, if any.
func (b *Batch) Flush(ctx context.Context) error {
	if len(b.recs) == 0 {
		return nil
	}
	if err := b.Store.PutBatch(ctx, b.Collection, b.recs); err != nil {
		return err
	}
	b.put += len(b.recs)
	b.recs = b.recs[:0]
	if b.Flushed != nil {
		b.Flushed(b.put)
	}
	return nil
}

// Put is the number of records put so far.
func (b *Batch) Put() int { return b.put }
