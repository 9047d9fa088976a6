package charset

import (
	"testing"
	"unicode/utf8"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		name string
		want string
		ok   bool
	}{
		{[]byte("Caf\xe9"), "windows-1252", "Café", true},
		{[]byte("Caf\xe9"), "ISO-8859-1", "Café", true},
		{[]byte("\x82\xa0"), "shift_jis", "あ", true},
		{[]byte("plain"), "no-such-charset", "", false},
	} {
		got, ok := Decode(tc.in, tc.name)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("Decode(%q, %q) = %q, %v; want %q, %v", tc.in, tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// Whatever the bytes and the charset name, decoding gives valid UTF-8 of
// bounded length (a legacy byte becomes at most one character of three
// bytes, a replacement included) and never panics.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"utf-8", "windows-1252", "shift_jis", "gb18030", "iso-2022-jp", "utf-16le", "big5", "x-unknown", ""} {
		f.Add([]byte("Caf\xe9 \x82\xa0 \x1b$B$\"\x1b(B \xff\xfe"), name)
	}
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		s, ok := Decode(b, name)
		if !ok {
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("Decode(%q, %q) is not valid UTF-8", b, name)
		}
		if len(s) > 4*len(b)+16 {
			t.Fatalf("Decode of %d bytes gave %d", len(b), len(s))
		}
	})
}
