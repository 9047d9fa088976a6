// Package unpack opens the containers a data room arrives in — ZIP archives
// (nested too) and e-mails (.eml, Outlook .msg) with their attachments —
// and hands out their entries as named byte streams, refusing what is
// unsafe with a reason a user can act on.
//
// Nothing here writes a file. An entry's name is only ever used as a
// document name, never as a path, so a hostile name cannot reach the file
// system; it is refused anyway when it is a trick (a "../" climbing out of
// the archive, an absolute path, bidirectional or invisible control
// characters that make one name look like another, bytes that are not the
// encoding the archive declares), so what a user sees in pakton is what
// the archive holds. Sizes are checked against the declared sizes before
// reading and against the bytes actually produced while reading, so an
// archive that lies about its sizes (a zip bomb) costs at most the limit.
package unpack

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Kind returns the container kind of a file name: "zip", "eml", "msg" or
// "" for a file that is not a container.
func Kind(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".zip":
		return "zip"
	case ".eml":
		return "eml"
	case ".msg":
		return "msg"
	}
	return ""
}

// CleanName normalises an entry name from an archive or message: Unicode
// NFC (so a name written on a Mac, decomposed, is the same document as the
// one written elsewhere), backslashes read as separators (Windows tools
// write them), repeated and trailing slashes and "." elements dropped. It
// refuses, with the reason, what no honest archive holds: an empty name,
// an absolute path or drive letter, a ".." element, control characters,
// bidirectional overrides and invisible characters, and elements longer
// than 255 bytes.
func CleanName(name string) (string, error) {
	if !utf8.ValidString(name) {
		return "", fmt.Errorf("the name is not valid UTF-8 (an encoding trick or a damaged archive)")
	}
	if r, ok := trickRune(name); ok {
		return "", fmt.Errorf("the name holds %s (U+%04X), which can disguise a file's real name", runeKind(r), r)
	}
	name = norm.NFC.String(strings.ReplaceAll(name, "\\", "/"))
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("absolute path (entries must be relative to the archive)")
	}
	if len(name) >= 2 && name[1] == ':' && unicode.IsLetter(rune(name[0])) {
		return "", fmt.Errorf("absolute path with a drive letter (entries must be relative to the archive)")
	}
	var parts []string
	for _, p := range strings.Split(name, "/") {
		switch p {
		case "", ".":
			continue
		case "..":
			return "", fmt.Errorf("the path climbs out of the archive (\"..\")")
		}
		if len(p) > 255 {
			return "", fmt.Errorf("a path element is longer than 255 bytes")
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("empty name")
	}
	return strings.Join(parts, "/"), nil
}

// trickRune finds a character that has no place in a file name: C0 and C1
// controls, bidirectional formatting (overrides, embeddings, isolates,
// marks) and invisible characters (zero-width spaces and joiners, word
// joiner, byte-order mark, soft hyphen).
func trickRune(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7F || r >= 0x80 && r <= 0x9F:
			return r, true
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
			return r, true
		case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF, r == 0x00AD, r == 0x180E:
			return r, true
		}
	}
	return 0, false
}

func runeKind(r rune) string {
	switch {
	case r < 0x20 || r == 0x7F || r >= 0x80 && r <= 0x9F:
		return "a control character"
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return "a bidirectional text control"
	}
	return "an invisible character"
}

// junk reports whether a cleaned entry name is operating-system clutter
// that archivers add (macOS resource forks and Finder files, Windows
// thumbnail caches, hidden files): left out silently, as hidden files are
// when a directory is ingested.
func junk(name string) bool {
	if strings.HasPrefix(name, "__MACOSX/") {
		return true
	}
	for _, p := range strings.Split(name, "/") {
		if strings.HasPrefix(p, ".") {
			return true
		}
	}
	switch strings.ToLower(path.Base(name)) {
	case "thumbs.db", "desktop.ini":
		return true
	}
	return false
}

// uniqueName returns name, or name with " (2)", " (3)", … before its
// extension when taken already holds it (compared case-insensitively, as
// the file systems users unpack to do), and records it.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 2; taken[strings.ToLower(out)]; i++ {
		out = fmt.Sprintf("%s (%d)%s", stem, i, ext)
	}
	taken[strings.ToLower(out)] = true
	return out
}
