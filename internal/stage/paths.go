package stage

import (
	"fmt"
	"path"
	"strings"
	"unicode"
)

// checkPath refuses a change's or a journal's path unless it is a clean
// slash-separated path inside the directory: not empty or absolute, no "." or ".."
// component, no backslash, no control character (NUL included), not the staging
// directory inside the directory (any case), and no component that git or a
// filesystem reads as .git (isDotGit).
func checkPath(p string) error {
	first, _, _ := strings.Cut(p, "/")
	switch {
	case p == "" || path.IsAbs(p) || strings.Contains(p, "\\"):
		return fmt.Errorf("%q: not a relative slash-separated path", p)
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q: not a clean path inside the directory", p)
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Errorf("%q: a control character in a file name", p)
	case strings.EqualFold(first, insideName):
		return fmt.Errorf("%q: the name of the staging directory; the update never writes there", p)
	}
	for _, c := range strings.Split(p, "/") {
		if isDotGit(c) {
			return fmt.Errorf("%q: the update never writes under .git (%q is .git to git or to a filesystem)", p, c)
		}
	}
	return nil
}

// isDotGit reports whether a path component is .git, or a name that Windows (NTFS)
// or macOS (HFS+) opens as .git, as git's verify_path refuses them (is_ntfs_dotgit,
// is_hfs_dotgit): in any case; with trailing dots or spaces (".git."); with an NTFS
// alternate data stream (".git::$INDEX_ALLOCATION"); the NTFS short name "git~1";
// with the code points HFS+ ignores (zero-width joiners, direction marks, BOM).
func isDotGit(name string) bool {
	n := strings.ToLower(strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, name))
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i]
	}
	n = strings.TrimRight(n, ". ")
	return n == ".git" || n == "git~1"
}
