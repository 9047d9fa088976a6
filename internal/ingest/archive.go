package ingest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/cfb"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/unpack"
)

// A data room arrives as a ZIP archive of folders. The walk opens each
// archive it finds (given on the command line, uploaded, or inside a
// directory) and lists its entries as items of their own, so progress,
// failures and skips are per entry; entries are read when a worker gets to
// them, straight from the archive. A nested archive is copied once to a
// temporary file (removed when the ingest ends) and listed the same way,
// within what its parent has left of the limits.
//
// Naming. An archive given directly (or uploaded) is like a directory
// given directly: its entries are named by their path inside it
// ("01 Corporate/1.1 Supply Agreement.rtf"). An archive found inside a
// directory, or nested in another archive, is like a sub-directory: its
// entries are named under its own name ("old/room.zip/01 Corporate/…").
// The folder of a document — what a user filters by, and one of the names
// people call it by — is the directory part of its name.

// Readable reports whether ingest reads a file of this name: a document
// format parse reads, or a ZIP archive.
func Readable(name string) bool {
	return parse.Format(name) != "" || unpack.Kind(name) == "zip"
}

// ContentMatches reports whether the first bytes of a file (at least 512
// when the file is that long) match the type its name claims, so that a
// file of another type is refused before a parser sees it.
func ContentMatches(name string, head []byte) bool {
	isText := func() bool { return strings.HasPrefix(http.DetectContentType(head), "text/") }
	isZip := bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06"))
	isCFB := bytes.HasPrefix(head, cfb.Magic)
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	isRTF := bytes.HasPrefix(trimmed, []byte(`{\rtf`))
	if unpack.Kind(name) == "zip" {
		return isZip
	}
	switch parse.Format(name) {
	case "pdf":
		return bytes.Contains(head, []byte("%PDF-"))
	case "docx", "odt":
		return isZip
	case "doc":
		// Word 97–2003, or what Word also saves as .doc: RTF, HTML, DOCX.
		return isCFB || isRTF || isZip || isText()
	case "rtf":
		return isRTF
	case "email":
		if unpack.Kind(name) == "msg" {
			return isCFB
		}
		return isText()
	case "image":
		return parse.ImageKind(head) != ""
	case "html", "text":
		return isText()
	}
	return false
}

// SupportedTypes lists what ingest reads, for messages.
const SupportedTypes = parse.Supported + " .zip"

// archives holds the archives one Ingest opened and its temporary files.
type archives struct {
	mu    sync.Mutex
	files []*os.File
	spill string // temporary directory for nested archives, made on first use
}

// close closes the archives and removes the temporary files.
func (u *archives) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, f := range u.files {
		f.Close()
	}
	u.files = nil
	if u.spill != "" {
		os.RemoveAll(u.spill)
		u.spill = ""
	}
}

// zipItems lists the entries of the archive at file (on disk) as items.
// display is how the archive is shown in messages (its path as given),
// prefix what its entries' names start with ("" for an archive given
// directly), src the provenance its entries inherit.
func (u *archives) zipItems(file, display, prefix string, src store.Source, lim unpack.Limits) []item {
	failed := func(reason string, err error) []item {
		name := strings.TrimSuffix(prefix, "/")
		if name == "" {
			name = path.Base(display)
		}
		return []item{failedItem(display, name, reason, err)}
	}
	if lim.Depth <= 0 {
		return failed("archive nested too deep (an archive inside an archive inside …): not opened", unpack.ErrBomb)
	}
	f, err := os.Open(file)
	if err != nil {
		return failed("cannot open: "+errText(err), err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return failed("cannot read: "+errText(err), err)
	}
	a, err := unpack.OpenZip(f, st.Size(), lim)
	if err != nil {
		f.Close()
		return failed(err.Error(), err)
	}
	u.mu.Lock()
	u.files = append(u.files, f)
	u.mu.Unlock()
	var items []item
	for i := range a.Entries {
		e := &a.Entries[i]
		name := prefix + e.Name
		esrc := src
		if esrc.Entry != "" {
			esrc.Entry += "/" + e.Name
		} else {
			esrc.Entry = e.Name
		}
		esrc.Folder = docread.FolderOf(name)
		it := item{path: display + "/" + e.Name, name: name, size: e.Size, arc: a, entry: e, src: esrc}
		switch {
		case e.Refused != "":
			it.status, it.reason = StatusFailed, "refused: "+e.Refused
			it.err = fmt.Errorf("%s: %s: %w", it.path, it.reason, unpack.ErrRefused)
		case unpack.Kind(e.Name) == "zip":
			items = append(items, u.nestedItems(a, e, it, lim)...)
			continue
		case parse.Format(e.Name) == "":
			it.status, it.reason = StatusSkipped, unsupportedReason(e.Name)
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return failed("the archive holds no files", fmt.Errorf("empty archive"))
	}
	return items
}

// nestedItems copies a nested archive to a temporary file and lists it.
func (u *archives) nestedItems(a *unpack.Archive, e *unpack.Entry, it item, lim unpack.Limits) []item {
	fail := func(reason string, err error) []item {
		it.status, it.reason, it.err = StatusFailed, reason, fmt.Errorf("%s: %s: %w", it.path, reason, err)
		return []item{it}
	}
	if lim.Depth <= 1 {
		return fail(fmt.Sprintf("refused: archives nested more than %d deep (an archive bomb?)", lim.Depth), unpack.ErrBomb)
	}
	data, err := a.Read(*e)
	if err != nil {
		return fail("cannot read the nested archive: "+err.Error(), err)
	}
	u.mu.Lock()
	if u.spill == "" {
		u.spill, err = os.MkdirTemp("", "pakton-unpack-")
	}
	dir := u.spill
	u.mu.Unlock()
	if err != nil {
		return fail("cannot unpack the nested archive: "+err.Error(), err)
	}
	tmp, err := os.CreateTemp(dir, "nested-*.zip")
	if err == nil {
		_, err = io.Copy(tmp, bytes.NewReader(data))
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fail("cannot unpack the nested archive: "+err.Error(), err)
	}
	sub := a.Limits()
	sub.Depth = lim.Depth - 1
	return u.zipItems(tmp.Name(), it.path, it.name+"/", it.src, sub)
}

func unsupportedReason(name string) string {
	ext := path.Ext(name)
	if ext == "" {
		ext = "no extension"
	}
	return fmt.Sprintf("unsupported file type (%s; supported: %s)", ext, SupportedTypes)
}
