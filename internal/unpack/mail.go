package unpack

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"path"
	"strings"

	"github.com/pakton/pakton/internal/charset"
)

// Message is an e-mail read from an .eml (RFC 5322 / MIME) or an Outlook
// .msg: its envelope, the body a reader sees and its attachments.
type Message struct {
	From, To, Cc, Date, Subject string
	// Body is the message text as sent, in Charset; BodyHTML says it is
	// HTML (used only when the message has no plain-text version).
	Body     []byte
	Charset  string
	BodyHTML bool
	// BodyRTF is an Outlook message's body when it only has one in RTF.
	BodyRTF     bool
	Attachments []Attachment
}

// Attachment is one file attached to a message, or an attached message.
type Attachment struct {
	// Name is the attachment's file name, cleaned, unique within its
	// message, with an extension from its content type when it had none.
	Name string
	Data []byte
	// Message is set for an attached Outlook message, read already (its
	// bytes are not a file of their own).
	Message *Message
	// Refused, when set, is why the attachment is not read.
	Refused string
}

// Message limits.
const (
	maxMIMEParts = 1000
	maxMIMEDepth = 16
)

// mimeDecoder decodes RFC 2047 encoded words in any charset the WHATWG
// standard knows.
var mimeDecoder = &mime.WordDecoder{CharsetReader: func(name string, r io.Reader) (io.Reader, error) {
	e := charset.Lookup(name)
	if e == nil {
		return nil, fmt.Errorf("unknown charset %q", name)
	}
	return e.NewDecoder().Reader(r), nil
}}

func decodeHeader(s string) string {
	if d, err := mimeDecoder.DecodeHeader(s); err == nil {
		s = d
	}
	return strings.Join(strings.Fields(s), " ")
}

// ReadEML parses an RFC 5322 message with its MIME parts.
func ReadEML(data []byte) (*Message, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return nil, fmt.Errorf("not an e-mail message (RFC 5322): %w", err)
	}
	m := &Message{
		From: decodeHeader(msg.Header.Get("From")), To: decodeHeader(msg.Header.Get("To")),
		Cc: decodeHeader(msg.Header.Get("Cc")), Date: decodeHeader(msg.Header.Get("Date")),
		Subject: decodeHeader(msg.Header.Get("Subject")),
	}
	if m.From == "" && m.To == "" && m.Subject == "" && m.Date == "" {
		return nil, errors.New("not an e-mail message: no From, To, Subject or Date header")
	}
	w := &mimeWalker{m: m, taken: map[string]bool{}}
	if err := w.part(textproto.MIMEHeader(msg.Header), msg.Body, 0); err != nil {
		return nil, err
	}
	if w.plain != nil {
		m.Body, m.Charset, m.BodyHTML = w.plain.body, w.plain.charset, false
	} else if w.html != nil {
		m.Body, m.Charset, m.BodyHTML = w.html.body, w.html.charset, true
	}
	return m, nil
}

type mimeText struct {
	body    []byte
	charset string
}

type mimeWalker struct {
	m           *Message
	plain, html *mimeText
	parts       int
	taken       map[string]bool
}

// part reads one MIME part: a multipart container is walked, the first
// text parts that are not attachments are the body, the rest attachments.
func (w *mimeWalker) part(h textproto.MIMEHeader, body io.Reader, depth int) error {
	w.parts++
	if w.parts > maxMIMEParts {
		return fmt.Errorf("more than %d MIME parts", maxMIMEParts)
	}
	if depth > maxMIMEDepth {
		return fmt.Errorf("MIME parts nested more than %d deep", maxMIMEDepth)
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "text/plain"
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, params = "application/octet-stream", map[string]string{}
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "text/plain") {
			mt = "text/plain"
		}
	}
	disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	name := dparams["filename"]
	if name == "" {
		name = params["name"]
	}
	name = decodeHeader(name)

	if strings.HasPrefix(mt, "multipart/") {
		boundary := params["boundary"]
		if boundary == "" {
			return nil
		}
		mr := multipart.NewReader(body, boundary)
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				// A truncated message: keep the parts read so far.
				return nil
			}
			if err := w.part(p.Header, p, depth+1); err != nil {
				return err
			}
		}
	}
	data, err := transferDecode(h.Get("Content-Transfer-Encoding"), body)
	if err != nil {
		return fmt.Errorf("MIME part %q: %w", name, err)
	}
	attachment := disp == "attachment" || name != "" && mt != "text/plain" && mt != "text/html"
	switch {
	case !attachment && mt == "text/plain" && w.plain == nil:
		w.plain = &mimeText{data, params["charset"]}
		return nil
	case !attachment && mt == "text/html" && w.html == nil:
		w.html = &mimeText{data, params["charset"]}
		return nil
	case !attachment && (mt == "text/plain" || mt == "text/html"):
		return nil // an alternative of the body already taken
	case !attachment && strings.HasPrefix(mt, "image/") && h.Get("Content-Id") != "":
		return nil // an image shown inside the HTML body (a logo, a signature)
	case !attachment && name == "" && mt != "message/rfc822":
		return nil // an unnamed inline part: nothing a lawyer would call an attachment
	}
	if mt == "message/rfc822" && name == "" {
		name = "Attached message"
		if sub, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
			if s := decodeHeader(sub.Header.Get("Subject")); s != "" {
				name = s
			}
		}
	}
	w.m.Attachments = append(w.m.Attachments, attachmentOf(name, mt, data, w.taken))
	return nil
}

// attachmentOf names an attachment: its file name cleaned to one path
// element, an extension from its content type when it has none, unique
// within the message.
func attachmentOf(name, mediaType string, data []byte, taken map[string]bool) Attachment {
	a := Attachment{Data: data}
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if base == "." || base == "/" || base == ".." {
		base = ""
	}
	clean, err := CleanName(base)
	if base == "" {
		clean, err = "attachment", nil
	}
	if err != nil {
		a.Name, a.Refused = printable(base), "attachment name: "+err.Error()
		return a
	}
	if path.Ext(clean) == "" {
		clean += extensionOf(mediaType)
	}
	if strings.EqualFold(clean, "winmail.dat") {
		a.Refused = "Outlook TNEF attachment (winmail.dat): pakton does not read it; ask the sender to send plain attachments"
	}
	a.Name = uniqueName(clean, taken)
	return a
}

// extensionOf gives the extension of the media types an attachment
// without one is most likely to have.
func extensionOf(mediaType string) string {
	switch mediaType {
	case "application/pdf":
		return ".pdf"
	case "application/msword":
		return ".doc"
	case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
		return ".docx"
	case "application/rtf", "text/rtf":
		return ".rtf"
	case "application/vnd.oasis.opendocument.text":
		return ".odt"
	case "application/zip", "application/x-zip-compressed":
		return ".zip"
	case "message/rfc822":
		return ".eml"
	case "application/vnd.ms-outlook":
		return ".msg"
	case "text/plain":
		return ".txt"
	case "text/html":
		return ".html"
	case "image/tiff":
		return ".tif"
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	}
	return ""
}

// transferDecode undoes a Content-Transfer-Encoding.
func transferDecode(enc string, r io.Reader) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "base64":
		// Line breaks and stray characters are skipped, as mail readers do.
		raw, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		clean := bytes.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' {
				return r
			}
			return -1
		}, raw)
		if len(clean)%4 == 1 {
			clean = clean[:len(clean)-1] // a stray last character decodes to nothing
		}
		out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
		n, _ := base64.RawStdEncoding.Decode(out, clean)
		return out[:n], nil
	case "quoted-printable":
		b, err := io.ReadAll(quotedprintable.NewReader(r))
		if err != nil && len(b) == 0 {
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(r)
}
