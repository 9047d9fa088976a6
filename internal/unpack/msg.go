package unpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/pakton/pakton/internal/cfb"
	"github.com/pakton/pakton/internal/charset"
)

// Outlook messages (.msg, MS-OXMSG) are compound files: each MAPI property
// of the message is a stream named "__substg1.0_<id><type>" (strings,
// binaries) or an entry of the "__properties_version1.0" stream (numbers,
// times); each attachment is a storage "__attach_version1.0_#N" holding
// its own properties, and an attached message is a storage in the same
// layout, read recursively.

// MAPI property ids used here.
const (
	propSubject       = 0x0037
	propSentReprName  = 0x0042
	propSenderName    = 0x0C1A
	propSenderEmail   = 0x0C1F
	propSenderSMTP    = 0x5D01
	propDisplayTo     = 0x0E04
	propDisplayCc     = 0x0E03
	propBody          = 0x1000
	propHTML          = 0x1013
	propRTFCompressed = 0x1009
	propHeaders       = 0x007D
	propSubmitTime    = 0x0039
	propDeliveryTime  = 0x0E06
	propCodePage      = 0x3FFD
	propInternetCPID  = 0x3FDE
	propAttachLong    = 0x3707
	propAttachShort   = 0x3704
	propDisplayName   = 0x3001
	propAttachData    = 0x3701
	propAttachMime    = 0x370E
	propAttachMethod  = 0x3705
	propAttachHidden  = 0x7FFE
	propAttachCID     = 0x3712
)

// ReadMSG parses an Outlook message.
func ReadMSG(data []byte) (*Message, error) {
	f, err := cfb.Open(data)
	if err != nil {
		return nil, fmt.Errorf("not an Outlook message: %w", err)
	}
	root := f.Root()
	if _, err := root.Stream("__properties_version1.0"); err != nil {
		if _, werr := root.Stream("WordDocument"); werr == nil {
			return nil, errors.New("the file is a Word document, not an Outlook message; name it .doc")
		}
		return nil, errors.New("not an Outlook message: no MAPI properties")
	}
	return readMSGStorage(root, 32, 0, new(int))
}

// maxMSGAttachments bounds the attachments of one Outlook message, those
// of attached messages included (as maxMIMEParts bounds an e-mail's).
const maxMSGAttachments = 1000

// msgProps reads one message or attachment storage's properties.
type msgProps struct {
	s     *cfb.Storage
	fixed map[uint16][]byte // fixed-size values from the properties stream, by id
	cp    string            // code page of 8-bit strings
}

func newMsgProps(s *cfb.Storage, header int) *msgProps {
	p := &msgProps{s: s, fixed: map[uint16][]byte{}, cp: "windows-1252"}
	if b, err := s.Stream("__properties_version1.0"); err == nil && len(b) >= header {
		for i := header; i+16 <= len(b); i += 16 {
			tag := binary.LittleEndian.Uint32(b[i:])
			p.fixed[uint16(tag>>16)] = b[i+8 : i+16]
		}
	}
	for _, id := range []uint16{propInternetCPID, propCodePage} {
		if v, ok := p.fixed[id]; ok {
			if cp := binary.LittleEndian.Uint32(v); cp != 0 {
				p.cp = strconv.Itoa(int(cp))
				break
			}
		}
	}
	return p
}

func streamName(id uint16, typ string) string { return fmt.Sprintf("__substg1.0_%04X%s", id, typ) }

// str returns a string property, Unicode or 8-bit.
func (p *msgProps) str(id uint16) string {
	if b, err := p.s.Stream(streamName(id, "001F")); err == nil {
		return strings.TrimRight(utf16String(b), "\x00")
	}
	if b, err := p.s.Stream(streamName(id, "001E")); err == nil {
		return strings.TrimRight(decodeCharset(b, p.cp), "\x00")
	}
	return ""
}

func (p *msgProps) bin(id uint16) []byte {
	b, err := p.s.Stream(streamName(id, "0102"))
	if err != nil {
		return nil
	}
	return b
}

func (p *msgProps) long(id uint16) (uint32, bool) {
	v, ok := p.fixed[id]
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(v), true
}

func (p *msgProps) time(id uint16) (time.Time, bool) {
	v, ok := p.fixed[id]
	if !ok {
		return time.Time{}, false
	}
	ft := int64(binary.LittleEndian.Uint64(v))
	if ft <= 0 {
		return time.Time{}, false
	}
	// FILETIME: 100-nanosecond intervals since 1601-01-01 UTC.
	const epochDiff = 116444736000000000
	return time.Unix(0, (ft-epochDiff)*100).UTC(), true
}

func utf16String(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

func decodeCharset(b []byte, name string) string {
	s, _ := charset.Decode(b, name)
	return s
}

// readMSGStorage reads a message from its storage; header is the size of
// its properties stream's header (32 for the file's message, 24 for an
// attached one).
func readMSGStorage(s *cfb.Storage, header, depth int, count *int) (*Message, error) {
	if depth > maxMIMEDepth {
		return nil, fmt.Errorf("attached messages nested more than %d deep", maxMIMEDepth)
	}
	p := newMsgProps(s, header)
	m := &Message{Subject: clean1(p.str(propSubject)), To: clean1(p.str(propDisplayTo)), Cc: clean1(p.str(propDisplayCc))}
	name := p.str(propSentReprName)
	if name == "" {
		name = p.str(propSenderName)
	}
	addr := p.str(propSenderSMTP)
	if addr == "" || !strings.Contains(addr, "@") {
		if a := p.str(propSenderEmail); strings.Contains(a, "@") {
			addr = a
		}
	}
	switch {
	case name != "" && addr != "" && name != addr:
		m.From = clean1(name) + " <" + addr + ">"
	case addr != "":
		m.From = addr
	default:
		m.From = clean1(name)
	}
	if t, ok := p.time(propSubmitTime); ok {
		m.Date = t.Format(time.RFC1123Z)
	} else if t, ok := p.time(propDeliveryTime); ok {
		m.Date = t.Format(time.RFC1123Z)
	} else if h := p.str(propHeaders); h != "" {
		if msg, err := mail.ReadMessage(strings.NewReader(h + "\r\n\r\n")); err == nil {
			m.Date = msg.Header.Get("Date")
		}
	}
	if body := p.str(propBody); strings.TrimSpace(body) != "" {
		m.Body, m.Charset = []byte(body), "utf-8"
	} else if html := p.bin(propHTML); len(html) > 0 {
		m.Body, m.Charset, m.BodyHTML = html, p.cp, true
	} else if html := p.str(propHTML); html != "" {
		m.Body, m.Charset, m.BodyHTML = []byte(html), "utf-8", true
	} else if rtf := p.bin(propRTFCompressed); len(rtf) > 0 {
		if b, err := decompressRTF(rtf); err == nil {
			m.Body, m.BodyRTF = b, true
		}
	}
	taken := map[string]bool{}
	for _, e := range s.Entries() {
		if !e.Storage || !strings.HasPrefix(strings.ToLower(e.Name), "__attach_version1.0_") {
			continue
		}
		if *count++; *count > maxMSGAttachments {
			return nil, fmt.Errorf("more than %d attachments", maxMSGAttachments)
		}
		m.Attachments = append(m.Attachments, readMSGAttachment(s.Open(e), taken, depth, count))
	}
	return m, nil
}

func clean1(s string) string { return strings.Join(strings.Fields(s), " ") }

// readMSGAttachment reads one attachment storage.
func readMSGAttachment(s *cfb.Storage, taken map[string]bool, depth int, count *int) Attachment {
	p := newMsgProps(s, 8)
	name := p.str(propAttachLong)
	if name == "" {
		name = p.str(propAttachShort)
	}
	if name == "" {
		name = p.str(propDisplayName)
	}
	mt := strings.ToLower(p.str(propAttachMime))
	if sub := s.Storage(streamName(propAttachData, "000D")); sub != nil {
		msg, err := readMSGStorage(sub, 24, depth+1, count)
		if name == "" && msg != nil {
			name = msg.Subject
		}
		if name == "" {
			name = "Attached message"
		}
		if !strings.HasSuffix(strings.ToLower(name), ".msg") {
			name += ".msg"
		}
		a := attachmentOf(name, "application/vnd.ms-outlook", nil, taken)
		if err != nil {
			a.Refused = "attached message: " + err.Error()
		}
		a.Message = msg
		return a
	}
	data := p.bin(propAttachData)
	hidden := false
	if v, ok := p.long(propAttachHidden); ok && v&0xFF != 0 {
		hidden = true
	}
	if hidden && strings.HasPrefix(mt, "image/") || p.str(propAttachCID) != "" && strings.HasPrefix(mt, "image/") {
		a := attachmentOf(name, mt, nil, taken)
		a.Refused = "image shown inside the message body (a logo or signature), not an attachment"
		return a
	}
	a := attachmentOf(name, mt, data, taken)
	if data == nil && a.Refused == "" {
		method, _ := p.long(propAttachMethod)
		switch method {
		case 2, 3, 4, 7:
			a.Refused = "the attachment is a link to a file outside the message, not the file itself"
		case 6:
			a.Refused = "an embedded OLE object, not a file"
		default:
			a.Refused = "the attachment holds no data"
		}
	}
	return a
}

// decompressRTF expands Outlook's compressed RTF (MS-OXRTFCP).
func decompressRTF(b []byte) ([]byte, error) {
	if len(b) < 16 {
		return nil, errors.New("compressed RTF: truncated header")
	}
	le := binary.LittleEndian
	raw := int(le.Uint32(b[4:]))
	switch le.Uint32(b[8:]) {
	case 0x414C454D: // "MELA": stored uncompressed
		return b[16:min(len(b), 16+raw)], nil
	case 0x75465A4C: // "LZFu"
	default:
		return nil, errors.New("compressed RTF: unknown format")
	}
	const prebuf = "{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
	var dict [4096]byte
	copy(dict[:], prebuf)
	w := len(prebuf)
	out := make([]byte, 0, min(raw, 64<<20))
	in := b[16:]
	for i := 0; i < len(in) && len(out) < raw; {
		ctl := in[i]
		i++
		for bit := 0; bit < 8 && i < len(in) && len(out) < raw; bit++ {
			if ctl&(1<<bit) == 0 {
				c := in[i]
				i++
				out = append(out, c)
				dict[w] = c
				w = (w + 1) % 4096
				continue
			}
			if i+2 > len(in) {
				return out, nil
			}
			ref := int(in[i])<<8 | int(in[i+1])
			i += 2
			off, n := ref>>4, ref&0xF+2
			if off == w {
				return out, nil // the end marker
			}
			for k := 0; k < n; k++ {
				c := dict[(off+k)%4096]
				out = append(out, c)
				dict[w] = c
				w = (w + 1) % 4096
			}
		}
	}
	return out, nil
}
