package unpack

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/pakton/pakton/internal/cfb/cfbtest"
	"github.com/pakton/pakton/internal/parse/bombtest"
)

const testEML = "From: =?UTF-8?Q?Fran=C3=A7ois_M=C3=BCller?= <fm@example.com>\r\n" +
	"To: counsel@example.com\r\n" +
	"Subject: =?ISO-8859-1?Q?Re:_sign=E9d_licence?=\r\n" +
	"Date: Tue, 3 Mar 2020 10:00:00 +0100\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=\"XX\"\r\n\r\n" +
	"--XX\r\n" +
	"Content-Type: multipart/related; boundary=\"RR\"\r\n\r\n" +
	"--RR\r\n" +
	"Content-Type: multipart/alternative; boundary=\"YY\"\r\n\r\n" +
	"--YY\r\n" +
	"Content-Type: text/plain; charset=iso-8859-1\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n\r\n" +
	"Please find the signed licence attached. Caf=E9.\r\n\r\n" +
	"--YY\r\n" +
	"Content-Type: text/html; charset=utf-8\r\n\r\n" +
	"<p>Please find the <b>signed</b> licence attached.</p><img src=\"cid:logo\">\r\n" +
	"--YY--\r\n" +
	"--RR\r\n" +
	"Content-Type: image/png\r\nContent-ID: <logo>\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n" +
	"--RR--\r\n" +
	"--XX\r\n" +
	"Content-Type: application/pdf\r\n" +
	"Content-Disposition: attachment; filename*=UTF-8''Lizenzvertrag%20M%C3%BCller.pdf\r\n" +
	"Content-Transfer-Encoding: base64\r\n\r\n" +
	"JVBERi0xLjQK\r\nJSVFT0YK\r\n" +
	"--XX\r\n" +
	"Content-Type: application/octet-stream; name=\"=?UTF-8?B?Li4vLi4vZXZpbC5wZGY=?=\"\r\n" +
	"Content-Disposition: attachment\r\n\r\nxx\r\n" +
	"--XX\r\n" +
	"Content-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"contract\"\r\n\r\n%PDF-1.4 second\r\n" +
	"--XX\r\n" +
	"Content-Type: message/rfc822\r\n\r\n" +
	"From: a@b.example\r\nSubject: Earlier draft\r\n\r\nSee the draft.\r\n" +
	"--XX\r\n" +
	"Content-Type: application/ms-tnef\r\nContent-Disposition: attachment; filename=\"winmail.dat\"\r\n\r\nxx\r\n" +
	"--XX--\r\n"

func TestReadEML(t *testing.T) {
	m, err := ReadEML([]byte(testEML))
	if err != nil {
		t.Fatal(err)
	}
	if m.From != "François Müller <fm@example.com>" || m.Subject != "Re: signéd licence" || m.Date == "" {
		t.Errorf("envelope %q / %q / %q", m.From, m.Subject, m.Date)
	}
	if string(m.Body) != "Please find the signed licence attached. Caf\xe9.\r\n" || m.Charset != "iso-8859-1" || m.BodyHTML {
		t.Errorf("body %q in %q (html %v)", m.Body, m.Charset, m.BodyHTML)
	}
	var names []string
	for _, a := range m.Attachments {
		n := a.Name
		if a.Refused != "" {
			n += " (refused)"
		}
		names = append(names, n)
	}
	want := []string{"Lizenzvertrag Müller.pdf", "evil.pdf", "contract.pdf", "Earlier draft.eml", "winmail.dat (refused)"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("attachments %q, want %q", names, want)
	}
	if string(m.Attachments[0].Data) != "%PDF-1.4\n%%EOF\n" {
		t.Errorf("base64 attachment decoded to %q", m.Attachments[0].Data)
	}
	if _, err := ReadEML([]byte("just some text\nwith no headers")); err == nil {
		t.Error("text without headers read as a message")
	}
}

// utf16z encodes s as an Outlook Unicode string stream.
func utf16z(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// msgProps builds a __properties_version1.0 stream with a header of size
// header and fixed-size properties.
func msgPropsStream(header int, props map[uint32]uint64) []byte {
	b := make([]byte, header)
	for tag, v := range props {
		e := make([]byte, 16)
		binary.LittleEndian.PutUint32(e, tag)
		binary.LittleEndian.PutUint64(e[8:], v)
		b = append(b, e...)
	}
	return b
}

// testMSG builds an Outlook message with a text body, a PDF attachment, a
// hidden inline image and an attached message.
func testMSG() []byte {
	when := time.Date(2021, 5, 4, 9, 30, 0, 0, time.UTC)
	ft := uint64(when.UnixNano()/100 + 116444736000000000)
	inner := cfbtest.Storage("__substg1.0_3701000D",
		cfbtest.Stream("__properties_version1.0", msgPropsStream(24, nil)),
		cfbtest.Stream("__substg1.0_0037001F", utf16z("Earlier draft")),
		cfbtest.Stream("__substg1.0_1000001F", utf16z("The draft is attached.")),
	)
	return cfbtest.Build(
		cfbtest.Stream("__properties_version1.0", msgPropsStream(32, map[uint32]uint64{0x00390040: ft})),
		cfbtest.Stream("__substg1.0_0037001F", utf16z("Executed supply agreement")),
		cfbtest.Stream("__substg1.0_0C1A001F", utf16z("Anna Smith")),
		cfbtest.Stream("__substg1.0_5D01001F", utf16z("anna@acme.example")),
		cfbtest.Stream("__substg1.0_0E04001F", utf16z("Counsel")),
		cfbtest.Stream("__substg1.0_1000001F", utf16z("Please find the executed agreement attached.\r\n")),
		cfbtest.Storage("__attach_version1.0_#00000000",
			cfbtest.Stream("__properties_version1.0", msgPropsStream(8, map[uint32]uint64{0x37050003: 1})),
			cfbtest.Stream("__substg1.0_3707001F", utf16z("Supply Agreement (executed).pdf")),
			cfbtest.Stream("__substg1.0_37010102", []byte("%PDF-1.4 executed")),
		),
		cfbtest.Storage("__attach_version1.0_#00000001",
			cfbtest.Stream("__properties_version1.0", msgPropsStream(8, map[uint32]uint64{0x7FFE000B: 1})),
			cfbtest.Stream("__substg1.0_3707001F", utf16z("image001.png")),
			cfbtest.Stream("__substg1.0_370E001F", utf16z("image/png")),
			cfbtest.Stream("__substg1.0_37010102", []byte("\x89PNG")),
		),
		cfbtest.Storage("__attach_version1.0_#00000002",
			cfbtest.Stream("__properties_version1.0", msgPropsStream(8, map[uint32]uint64{0x37050003: 5})),
			inner,
		),
	)
}

func TestReadMSG(t *testing.T) {
	m, err := ReadMSG(testMSG())
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Executed supply agreement" || m.From != "Anna Smith <anna@acme.example>" || m.To != "Counsel" {
		t.Errorf("envelope %q / %q / %q", m.Subject, m.From, m.To)
	}
	if !strings.HasPrefix(m.Date, "Tue, 04 May 2021 09:30:00") {
		t.Errorf("date %q", m.Date)
	}
	if !strings.HasPrefix(string(m.Body), "Please find the executed agreement") {
		t.Errorf("body %q", m.Body)
	}
	if len(m.Attachments) != 3 {
		t.Fatalf("%d attachments", len(m.Attachments))
	}
	if a := m.Attachments[0]; a.Name != "Supply Agreement (executed).pdf" || string(a.Data) != "%PDF-1.4 executed" || a.Refused != "" {
		t.Errorf("attachment 0: %+v", a)
	}
	if a := m.Attachments[1]; !strings.Contains(a.Refused, "inside the message body") {
		t.Errorf("inline image: %+v", a)
	}
	if a := m.Attachments[2]; a.Name != "Earlier draft.msg" || a.Message == nil || string(a.Message.Body) != "The draft is attached." {
		t.Errorf("attached message: %+v", a)
	}
}

func TestDecompressRTF(t *testing.T) {
	// The example of MS-OXRTFCP section 3.1.1.
	comp := []byte{0x2d, 0x00, 0x00, 0x00, 0x2b, 0x00, 0x00, 0x00, 0x4c, 0x5a, 0x46, 0x75, 0xf1, 0xc5, 0xc7, 0xa7,
		0x03, 0x00, 0x0a, 0x00, 0x72, 0x63, 0x70, 0x67, 0x31, 0x32, 0x35, 0x42, 0x32, 0x0a, 0xf3, 0x20,
		0x68, 0x65, 0x6c, 0x09, 0x00, 0x20, 0x62, 0x77, 0x05, 0xb0, 0x6c, 0x64, 0x7d, 0x0a, 0x80, 0x0f, 0xa0}
	got, err := decompressRTF(comp)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzReadEML(f *testing.F) {
	f.Add([]byte(testEML))
	for _, b := range bombtest.Seeds("eml") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadEML(data)
		if err != nil {
			return
		}
		for _, a := range m.Attachments {
			if a.Refused == "" {
				if _, err := CleanName(a.Name); err != nil || strings.Contains(a.Name, "/") {
					t.Fatalf("attachment name %q accepted", a.Name)
				}
			}
		}
	})
}

func FuzzReadMSG(f *testing.F) {
	f.Add(testMSG())
	for _, b := range bombtest.Seeds("msg") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMSG(data)
		if err != nil {
			return
		}
		for _, a := range m.Attachments {
			if a.Refused == "" && strings.Contains(a.Name, "/") {
				t.Fatalf("attachment name %q accepted", a.Name)
			}
		}
	})
}
