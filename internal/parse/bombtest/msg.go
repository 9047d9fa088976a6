package bombtest

import (
	"fmt"
	"io"
	"unicode/utf16"
)

// Outlook messages (.msg) whose directory is a graph rather than a tree:
// attachments sharing one storage, an attached message holding its own
// ancestors, attachments whose data streams share sectors.

// msgBuilder collects directory entries and streams.
type msgBuilder struct {
	dirs    []dirent
	streams [][]byte
}

func (b *msgBuilder) add(d dirent) uint32 {
	b.dirs = append(b.dirs, d)
	return uint32(len(b.dirs) - 1)
}

func (b *msgBuilder) stream(name string, data []byte) uint32 {
	b.streams = append(b.streams, data)
	return b.add(entry(name, cfbStream, len(b.streams)-1))
}

func (b *msgBuilder) storage(name string, children ...uint32) uint32 {
	id := b.add(entry(name, cfbStorage, -1))
	b.dirs[id].child = siblings(b.dirs, children)
	return id
}

func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	out := make([]byte, 2*len(u))
	for i, c := range u {
		le.PutUint16(out[2*i:], c)
	}
	return out
}

// message adds the property streams of a message (header bytes of its
// properties stream: 32 for the file's message, 24 for an attached one)
// and returns their ids.
func (b *msgBuilder) message(header int, subject, body string) []uint32 {
	return []uint32{
		b.stream("__properties_version1.0", make([]byte, header)),
		b.stream("__substg1.0_0037001F", utf16le(subject)),
		b.stream("__substg1.0_1000001F", utf16le(body)),
	}
}

func (b *msgBuilder) write(w io.Writer, rootChildren []uint32) error {
	b.dirs[0].child = siblings(b.dirs, rootChildren)
	return writeCFB(w, b.dirs, b.streams)
}

func newMsg() *msgBuilder {
	b := &msgBuilder{}
	b.add(entry("Root Entry", cfbRoot, -1))
	return b
}

func attachName(i int) string { return fmt.Sprintf("__attach_version1.0_#%08X", i) }

// sharedAttachments adds k attachment storages that all hold children:
// one subtree reachable through every one of them.
func (b *msgBuilder) sharedAttachments(k int, children []uint32) []uint32 {
	shared := siblings(b.dirs, children)
	ids := make([]uint32, k)
	for i := range ids {
		ids[i] = b.add(entry(attachName(i), cfbStorage, -1))
		b.dirs[ids[i]].child = shared
	}
	return ids
}

func msgCases() []Case {
	return []Case{
		{
			Name: "msg-dag", File: "dag.msg", Want: Either,
			About: "each message has four attachments sharing one storage that holds the next attached message, 15 levels deep: a billion paths to one 64 KB text",
			Write: func(w io.Writer) error {
				b := newMsg()
				leaf := []uint32{
					b.stream("__properties_version1.0", make([]byte, 8)),
					b.stream("__substg1.0_3707001F", utf16le("contract.txt")),
					b.stream("__substg1.0_37010102", leafText(64<<10)),
				}
				below := b.sharedAttachments(4, leaf)
				for d := 15; d >= 1; d-- {
					msg := append(b.message(24, fmt.Sprintf("Level %d", d), "See attached."), below...)
					sub := b.storage("__substg1.0_3701000D", msg...)
					att := []uint32{b.stream("__properties_version1.0", make([]byte, 8)), sub}
					below = b.sharedAttachments(4, att)
				}
				return b.write(w, append(b.message(32, "Signed contracts", "Attached."), below...))
			},
		},
		{
			Name: "msg-cycle", File: "cycle.msg", Want: Either,
			About: "four attachments, each an attached message whose storage holds the root message's own entries: a cycle",
			Write: func(w io.Writer) error {
				b := newMsg()
				top := b.message(32, "Loop", "Attached.")
				sub := b.add(entry("__substg1.0_3701000D", cfbStorage, -1))
				att := []uint32{b.stream("__properties_version1.0", make([]byte, 8)), sub}
				atts := b.sharedAttachments(4, att)
				root := siblings(b.dirs, append(top, atts...))
				b.dirs[0].child = root
				b.dirs[sub].child = root
				return writeCFB(w, b.dirs, b.streams)
			},
		},
		{
			Name: "msg-shared-stream", File: "shared-stream.msg", Want: Either,
			About: "a thousand attachments whose 4 MB data streams all point at the same sectors",
			Write: func(w io.Writer) error {
				b := newMsg()
				b.streams = append(b.streams, leafText(4<<20))
				data := len(b.streams) - 1
				var atts []uint32
				for i := range 1000 {
					kids := []uint32{
						b.stream("__properties_version1.0", make([]byte, 8)),
						b.stream("__substg1.0_3707001F", utf16le(fmt.Sprintf("contract %d.txt", i))),
						b.add(entry("__substg1.0_37010102", cfbStream, data)),
					}
					atts = append(atts, b.storage(attachName(i), kids...))
				}
				return b.write(w, append(b.message(32, "Shared", "Attached."), atts...))
			},
		},
	}
}

// leafText is n bytes of contract prose.
func leafText(n int) []byte {
	var bb bytesWriter
	prose(&bb, n, 5, "\n\n")
	return bb.b[:n]
}

type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
