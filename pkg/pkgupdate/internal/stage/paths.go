package stage

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitpath"
)

// checkPath refuses a change's or a journal's path unless it is a clean
// slash-separated path inside the directory: not empty or absolute, no "." or ".."
// component, no backslash, no control character (NUL included), no component that
// names a staging directory in any spelling (IsStagingName), and no component that
// git or a filesystem reads as .git (gitpath.IsDotGit).
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
		if IsStagingName(c) {
			return fmt.Errorf("%q: %q is the name of a staging directory (to a case-insensitive filesystem); the update never writes there", p, c)
		}
		if gitpath.IsDotGit(c) {
			return fmt.Errorf("%q: the update never writes under .git (%q is .git to git or to a filesystem)", p, c)
		}
	}
	return nil
}
