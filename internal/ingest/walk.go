package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/unpack"
)

// item is one file found by the walk, or one path that could not be used.
type item struct {
	path   string // as found (joined from the argument); for an archive entry, the archive's path and the entry's
	name   string // document name: relative to the directory given, slash-separated
	size   int64
	status Status // set when the walk already decided (skipped, failed)
	reason string
	err    error
	// arc and entry, for an archive entry, are where its bytes are.
	arc   *unpack.Archive
	entry *unpack.Entry
	// src is the provenance the walk knows: path, archive, entry, folder.
	src store.Source
}

// collect expands the paths given to Ingest into files, in a stable order:
// arguments in the order given, directory contents in lexical order. Hidden
// files and directories inside a directory are skipped silently; files with
// unsupported extensions, special files, broken links and unreadable
// directories become items with a skipped or failed status.
//
// A ZIP archive becomes the items of its entries (archive.go): an archive
// given directly names its entries by their path inside it, one found
// inside a directory under its own name.
func collect(paths []string, u *archives, lim unpack.Limits) []item {
	var items []item
	add := func(path, name string, st fs.FileInfo, top bool) {
		it := fileItem(path, name, st)
		if it.status == "" && unpack.Kind(name) == "zip" {
			prefix := name + "/"
			if top {
				prefix = ""
			}
			items = append(items, u.zipItems(path, path, prefix, store.Source{Path: path, Archive: name}, lim)...)
			return
		}
		items = append(items, it)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			items = append(items, failedItem(p, filepath.Base(p), statReason(p, err), err))
			continue
		}
		if !st.IsDir() {
			add(p, filepath.Base(p), st, true)
			continue
		}
		root := p
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			rel, rerr := filepath.Rel(root, path)
			if rerr != nil {
				rel = path
			}
			name := filepath.ToSlash(rel)
			if err != nil {
				if path == root {
					return err
				}
				items = append(items, failedItem(path, name, "cannot read: "+errText(err), err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if path != root && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				st, err := os.Stat(path)
				if err != nil {
					items = append(items, failedItem(path, name, statReason(path, err), err))
					return nil
				}
				if st.IsDir() {
					items = append(items, item{path: path, name: name, status: StatusSkipped, reason: "symbolic link to a directory (not followed)"})
					return nil
				}
				add(path, name, st, false)
				return nil
			}
			info, err := d.Info()
			if err != nil {
				items = append(items, failedItem(path, name, "cannot read: "+errText(err), err))
				return nil
			}
			add(path, name, info, false)
			return nil
		})
		if err != nil {
			items = append(items, failedItem(p, filepath.Base(p), "cannot read directory: "+errText(err), err))
		}
	}
	return dedupe(items)
}

// fileItem classifies a file the walk found.
func fileItem(path, name string, st fs.FileInfo) item {
	it := item{path: path, name: name, size: st.Size(), src: store.Source{Path: path, Folder: docread.FolderOf(name)}}
	if !st.Mode().IsRegular() {
		it.status, it.reason = StatusFailed, "not a regular file ("+fileKind(st.Mode())+")"
		it.err = fmt.Errorf("%s: %s", path, it.reason)
		return it
	}
	if !Readable(name) {
		it.status, it.reason = StatusSkipped, unsupportedReason(name)
	}
	return it
}

func failedItem(path, name, reason string, err error) item {
	return item{path: path, name: name, status: StatusFailed, reason: reason, err: fmt.Errorf("%s: %s: %w", path, reason, err)}
}

// statReason explains why a path could not be stat'ed, telling a dangling
// symbolic link apart from a missing file.
func statReason(path string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return fmt.Sprintf("broken symbolic link (target %q does not exist)", target)
		}
		return "no such file or directory"
	}
	if errors.Is(err, fs.ErrPermission) {
		return "permission denied"
	}
	return "cannot read: " + errText(err)
}

// errText is an error's message without the path that *PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeIrregular != 0:
		return "irregular file"
	}
	return m.Type().String()
}

// dedupe marks files whose document name repeats an earlier one's: document
// ids derive from names, so the second would silently replace the first. The
// same file listed twice is dropped.
func dedupe(items []item) []item {
	first := map[string]string{} // name → path
	seen := map[string]bool{}    // absolute path
	out := items[:0]
	for _, it := range items {
		if it.status == "" {
			abs, err := filepath.Abs(it.path)
			if err == nil {
				if seen[abs] {
					continue
				}
				seen[abs] = true
			}
			if p, ok := first[it.name]; ok {
				it.status = StatusFailed
				it.reason = fmt.Sprintf("same document name %q as %s (document ids come from names; ingest one of them from another directory or into another collection)", it.name, p)
				it.err = fmt.Errorf("%s: %s", it.path, it.reason)
			} else {
				first[it.name] = it.path
			}
		}
		out = append(out, it)
	}
	return out
}
