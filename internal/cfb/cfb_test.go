package cfb_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pakton/pakton/internal/cfb"
	"github.com/pakton/pakton/internal/cfb/cfbtest"
	"github.com/pakton/pakton/internal/parse/bombtest"
)

func TestReadStreams(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 700) // 11,200 bytes: regular sectors
	data := cfbtest.Build(
		cfbtest.Stream("small", []byte("hello")),
		cfbtest.Stream("big", big),
		cfbtest.Stream("empty", nil),
		cfbtest.Storage("sub", cfbtest.Stream("inner", []byte("deep")), cfbtest.Storage("deeper", cfbtest.Stream("x", []byte("y")))),
	)
	f, err := cfb.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	root := f.Root()
	for _, tc := range []struct {
		name string
		want []byte
	}{{"small", []byte("hello")}, {"BIG", big}, {"empty", nil}} {
		got, err := root.Stream(tc.name)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("stream %s: %d bytes, %v; want %d bytes", tc.name, len(got), err, len(tc.want))
		}
	}
	sub := root.Storage("sub")
	if sub == nil {
		t.Fatal("no storage sub")
	}
	if got, err := sub.Stream("inner"); err != nil || string(got) != "deep" {
		t.Errorf("sub/inner = %q, %v", got, err)
	}
	if got, err := sub.Storage("deeper").Stream("x"); err != nil || string(got) != "y" {
		t.Errorf("sub/deeper/x = %q, %v", got, err)
	}
	if _, err := root.Stream("missing"); !errors.Is(err, cfb.ErrNotFound) {
		t.Errorf("missing stream: %v", err)
	}
	if n := len(root.Entries()); n != 4 {
		t.Errorf("%d root entries, want 4", n)
	}
}

// Damaged files fail with ErrFormat (or read what they can), never hang or
// panic.
func TestDamaged(t *testing.T) {
	good := cfbtest.Build(cfbtest.Stream("big", bytes.Repeat([]byte("x"), 9000)), cfbtest.Stream("s", []byte("small")))
	le := binary.LittleEndian
	loop := append([]byte(nil), good...)
	// Make the big stream's chain loop: its first sector points to itself.
	fatOff := 512 // the first FAT sector follows the header
	for i := 0; i < 128; i++ {
		v := le.Uint32(loop[fatOff+4*i:])
		if v != 0xFFFFFFFD && v != 0xFFFFFFFF && v != 0xFFFFFFFE {
			le.PutUint32(loop[fatOff+4*i:], uint32(i)) // point to itself
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"short", good[:100]},
		{"no signature", append([]byte("XXXXXXXX"), good[8:]...)},
		{"truncated", good[:len(good)/2]},
		{"looping chains", loop},
		{"bad sector size", func() []byte { b := append([]byte(nil), good...); le.PutUint16(b[30:], 15); return b }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := cfb.Open(tc.data)
			if err != nil {
				if !errors.Is(err, cfb.ErrFormat) {
					t.Errorf("error %v does not wrap ErrFormat", err)
				}
				return
			}
			for _, e := range f.Root().Entries() {
				if _, err := f.Root().Read(e); err != nil && !errors.Is(err, cfb.ErrFormat) {
					t.Errorf("read %s: %v", e.Name, err)
				}
			}
		})
	}
}

func FuzzOpen(f *testing.F) {
	f.Add(cfbtest.Build(cfbtest.Stream("a", []byte("hello")), cfbtest.Storage("s", cfbtest.Stream("b", bytes.Repeat([]byte("z"), 5000)))))
	for _, b := range append(bombtest.Seeds("msg"), bombtest.Seeds("doc")...) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := cfb.Open(data)
		if err != nil {
			return
		}
		var walk func(s *cfb.Storage, depth int)
		walk = func(s *cfb.Storage, depth int) {
			if depth > 8 {
				return
			}
			for _, e := range s.Entries() {
				if e.Storage {
					walk(s.Open(e), depth+1)
					continue
				}
				if b, err := s.Read(e); err == nil && len(b) > len(data) {
					t.Fatalf("stream %s: %d bytes from a %d-byte file", e.Name, len(b), len(data))
				}
			}
		}
		walk(cf.Root(), 0)
	})
}
