package roles

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// PathFault is what is wrong with a package-relative path (CheckPath); each value is the
// phrase a message puts after the quoted path: `updatedPath "../x" leaves the package root`.
type PathFault string

const (
	// PathControl: the path holds a control character (C0, DEL or C1, such as NUL, a
	// newline or ESC) or is not valid UTF-8. No file kpt reads has such a name worth
	// merging, and a result that printed it would write it to the user's terminal.
	PathControl PathFault = "holds a control character"
	// PathAbsolute: the path starts with a slash or a backslash, or with a drive letter
	// ("C:").
	PathAbsolute PathFault = "is absolute"
	// PathOutside: the path, cleaned (Clean: a backslash is a separator), is ".." or
	// starts with "../": it leaves the package root.
	PathOutside PathFault = "leaves the package root"
)

// CheckPath returns what is wrong with p as a path relative to the package root, ""
// when nothing is (docs/function.md, "Choosing roles": a path that is absolute or leaves
// the package root is refused). It reads p as Clean does, a backslash being a separator,
// so `u\..\..` leaves the root as `u/../..` does. Package config checks the path keys
// with it, and Assign the path annotations of the items (see Assign). "" is fine (no
// path).
func CheckPath(p string) PathFault {
	if !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return PathControl
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(s, "/") || (len(s) > 1 && s[1] == ':') {
		return PathAbsolute
	}
	if p == "" {
		return ""
	}
	if c := Clean(p); c == ".." || strings.HasPrefix(c, "../") {
		return PathOutside
	}
	return ""
}
