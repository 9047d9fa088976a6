package parse

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/charset"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/unpack"
)

// Canonical text of an e-mail (.eml, Outlook .msg) is what a reader sees
// at the top of the message and then its body:
//
//	From: …
//	To: …
//	Cc: …           (lines whose header is empty are left out)
//	Date: …
//	Subject: …
//
//	<the body>
//
// The body is the plain-text version when the message has one, else its
// HTML version read as an HTML file is, else (Outlook) its RTF body; its
// charset is the one the message declares. Attachments are not part of
// the text: ingest makes each one its own document, named
// "<message>/<attachment>", and the message's metadata lists them.

func parseEmail(ctx context.Context, name string, data []byte, opt Options) (*document.Document, error) {
	var (
		m   *unpack.Message
		err error
	)
	if unpack.Kind(name) == "msg" {
		m, err = unpack.ReadMSG(data)
	} else {
		m, err = unpack.ReadEML(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return Message(ctx, m, opt)
}

// Message renders a message read by internal/unpack as a document: its
// header lines and body, with its envelope and attachment names as
// metadata.
func Message(ctx context.Context, m *unpack.Message, opt Options) (*document.Document, error) {
	lim := newBudget(opt)
	var head strings.Builder
	for _, h := range [][2]string{{"From", m.From}, {"To", m.To}, {"Cc", m.Cc}, {"Date", m.Date}, {"Subject", m.Subject}} {
		if v := strings.TrimSpace(h[1]); v != "" {
			head.WriteString(h[0] + ": " + canonicalText(v) + "\n")
		}
	}
	var body *document.Document
	switch {
	case len(m.Body) == 0:
		body = &document.Document{}
	case m.BodyHTML:
		b, err := parseHTML(ctx, []byte(decodeBody(m.Body, m.Charset)), lim)
		if err != nil {
			return nil, fmt.Errorf("the message's HTML body: %w", err)
		}
		body = b
	case m.BodyRTF:
		b, err := parseRTF(m.Body, lim)
		if err != nil {
			return nil, fmt.Errorf("the message's RTF body: %w", err)
		}
		body = b
	default:
		body = &document.Document{Text: strings.TrimSpace(decodeBody(m.Body, m.Charset))}
	}
	h := strings.TrimRight(head.String(), "\n")
	doc := &document.Document{Format: "email", Text: h}
	if body.Text != "" {
		if h != "" {
			doc.Text += "\n\n"
		}
		shift := utf8.RuneCountInString(doc.Text)
		doc.Text += body.Text
		for _, b := range body.Blocks {
			b.Span.Start += shift
			b.Span.End += shift
			doc.Blocks = append(doc.Blocks, b)
		}
	}
	if err := checkDocument(doc, opt); err != nil {
		return nil, err
	}
	// The envelope is shown in listings and details: each field is kept
	// whole in the text, but at most maxEnvelopeField bytes of it here.
	meta := &document.Message{From: clip(m.From), To: clip(m.To), Cc: clip(m.Cc), Date: clip(m.Date), Subject: clip(m.Subject)}
	for _, a := range m.Attachments {
		meta.Attachments = append(meta.Attachments, a.Name)
	}
	doc.Meta = &document.Meta{Message: meta}
	return doc, nil
}

// maxEnvelopeField bounds each envelope field of a message's metadata
// (RFC 5322 lines are at most 998 characters).
const maxEnvelopeField = 1000

// clip shortens s to at most maxEnvelopeField bytes, on a character
// boundary, marking the cut with "…".
func clip(s string) string {
	if len(s) <= maxEnvelopeField {
		return s
	}
	cut := maxEnvelopeField - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// decodeBody decodes a text body in its declared charset; without one (or
// an unknown one) it is read as a text file is: UTF-8, or Windows-1252
// when it is mostly not UTF-8.
func decodeBody(b []byte, cs string) string {
	if cs != "" {
		if s, ok := charset.Decode(b, cs); ok {
			return canonicalText(s)
		}
	}
	s, err := decodeText(b)
	if err != nil {
		return canonicalText(strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	return s
}
