// Package charset decodes the 8-bit text of legacy formats — RTF and Word
// 97–2003 files, e-mails and Outlook messages — named by a MIME charset
// label ("iso-8859-1", "windows-1252", "shift_jis") or a Windows code page
// number ("1252", "932"). The tables are golang.org/x/text's
// implementation of the WHATWG Encoding Standard, the one browsers and
// mail readers use, so a message labelled "iso-8859-1" reads as
// Windows-1252 exactly as every mail client shows it.
package charset

import (
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// codePages maps Windows code page numbers to WHATWG labels.
var codePages = map[string]string{
	"874": "windows-874", "932": "shift_jis", "936": "gbk", "949": "euc-kr", "950": "big5",
	"1250": "windows-1250", "1251": "windows-1251", "1252": "windows-1252", "1253": "windows-1253",
	"1254": "windows-1254", "1255": "windows-1255", "1256": "windows-1256", "1257": "windows-1257",
	"1258": "windows-1258", "10000": "macintosh", "mac": "macintosh", "20127": "us-ascii",
	"20866": "koi8-r", "28591": "windows-1252", "28592": "iso-8859-2", "28595": "iso-8859-5",
	"50220": "iso-2022-jp", "51932": "euc-jp", "54936": "gb18030", "65001": "utf-8", "866": "ibm866",
}

// Lookup returns the encoding a charset label or code page number names,
// or nil when it is unknown.
func Lookup(name string) encoding.Encoding {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "437", "ibm437", "cp437":
		return charmap.CodePage437
	case "850", "ibm850", "cp850":
		return charmap.CodePage850
	}
	if l, ok := codePages[name]; ok {
		name = l
	}
	e, err := htmlindex.Get(name)
	if err != nil {
		return nil
	}
	return e
}

// Decode decodes b in the named charset. ok is false when the charset is
// unknown; the bytes are then returned as they are (the caller decides
// how to read them).
func Decode(b []byte, name string) (s string, ok bool) {
	e := Lookup(name)
	if e == nil {
		return string(b), false
	}
	out, err := e.NewDecoder().Bytes(b)
	if err != nil {
		return string(b), false
	}
	return string(out), true
}
