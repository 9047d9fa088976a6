package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

// showDoc prints one document's details, or with asText its canonical
// text byte for byte as stored.
func showDoc(ctx context.Context, st *store.Store, collection, ref string, asText, asJSON bool) error {
	info, err := docread.FindDoc(ctx, st, collection, ref)
	if err != nil {
		return err
	}
	d, rec, err := usecase.Describe(ctx, st, collection, info.ID)
	if err != nil {
		return err
	}
	if asText {
		_, err := io.WriteString(stdout, rec.Doc.Text)
		return err
	}
	if asJSON {
		return writeJSON(d)
	}
	return writeDetails(stdout, d, rec.Doc)
}

// formatNames says in words what a format name means.
var formatNames = map[string]string{
	"text": "plain text", "html": "HTML", "docx": "Word (.docx)", "doc": "Word 97–2003 (.doc)",
	"rtf": "Rich Text Format", "odt": "OpenDocument text", "pdf": "PDF with a text layer",
	"pdf-ocr": "PDF, scanned pages read by OCR", "email": "e-mail message", "tiff-ocr": "TIFF scan read by OCR",
	"png-ocr": "PNG scan read by OCR", "jpeg-ocr": "JPEG scan read by OCR",
}

func writeDetails(w io.Writer, d usecase.Details, doc *document.Document) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("Name", d.Name)
	row("ID", d.ID)
	format := d.Format
	if n := formatNames[d.Format]; n != "" {
		format += " (" + n + ")"
	}
	if d.Meta != nil && d.Meta.Reader != "" {
		format += ", read by " + d.Meta.Reader
	}
	row("Format", format)
	folder := d.Folder
	if folder == "" {
		folder = "(top level)"
	}
	row("Folder", folder)
	if d.Source.Archive != "" {
		row("Archive", fmt.Sprintf("%s, entry %s", d.Source.Archive, d.Source.Entry))
	}
	if d.Pages > 0 {
		row("Pages", fmt.Sprint(d.Pages))
	}
	row("Size", fmt.Sprintf("%d bytes; %d characters of text; %d clauses", d.Source.Size, d.Runes, max(0, d.Nodes-1)))
	row("Ingested", timeText(d.Source.IngestedAt))
	row("SHA-256", d.Source.SHA256)
	row("Contract", d.Display)
	row("Title", d.Title)
	row("Parties", strings.Join(d.Parties, "; "))
	row("Type", d.Type)
	if len(d.Names) > 0 {
		var ns []string
		for _, n := range d.Names {
			ns = append(ns, fmt.Sprintf("%s (%s)", n.Text, n.Kind))
		}
		row("Names", strings.Join(ns, "; "))
	}
	if d.Meta != nil && d.Meta.OCR != nil {
		o := d.Meta.OCR
		conf := "no words recognised"
		if o.Words > 0 {
			conf = fmt.Sprintf("mean word confidence %.1f of 100 over %d words", o.Confidence, o.Words)
		}
		row("OCR", fmt.Sprintf("%s, %s", o.Engine, conf))
		var pages []string
		for i, p := range o.Pages {
			if i < len(o.PageConfidence) {
				pages = append(pages, fmt.Sprintf("p. %d: %.1f", p, o.PageConfidence[i]))
			}
		}
		if len(pages) > 1 {
			row("", strings.Join(pages, ", "))
		}
		var turned []string
		for i, a := range o.PageTurned {
			if a != 0 && i < len(o.Pages) {
				turned = append(turned, fmt.Sprintf("p. %d by %.1f°", o.Pages[i], a))
			}
		}
		if len(turned) > 0 {
			row("", "turned straight before OCR (fed askew): "+strings.Join(turned, ", "))
		}
	}
	if d.Meta != nil && d.Meta.Message != nil {
		m := d.Meta.Message
		row("From", m.From)
		row("To", m.To)
		row("Cc", m.Cc)
		row("Date", m.Date)
		row("Subject", m.Subject)
	}
	for i, a := range d.Attachments {
		k := ""
		if i == 0 {
			k = "Attachments"
		}
		v := a.Name
		if a.ID != "" {
			v += " [" + a.ID + "]"
		}
		if a.Note != "" {
			v += " (" + a.Note + ")"
		}
		row(k, v)
	}
	if d.Parent != nil {
		row("Attached to", d.Parent.Name)
	}
	for i, dup := range d.Duplicates {
		k := ""
		if i == 0 {
			k = "Same contract"
		}
		v := dup.Name + " [" + dup.ID + "]"
		if dup.Note != "" {
			v += " (" + dup.Note + ")"
		}
		row(k, v)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n(pakton docs show --text %s prints the text every span points into)\n", d.ID)
	return err
}
