package docread

import (
	"path"

	"github.com/pakton/pakton/internal/store"
)

// DocFolder is the folder a document is filed in.
func DocFolder(in store.DocInfo) string {
	if in.Source.Folder != "" || in.Source.Archive != "" {
		return in.Source.Folder
	}
	return FolderOf(in.Name)
}

// FolderOf is the folder part of a document name ("" at the top).
func FolderOf(name string) string {
	d := path.Dir(name)
	if d == "." || d == "/" {
		return ""
	}
	return d
}
