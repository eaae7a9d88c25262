package gitpath

import "strings"

// IsDotGit reports whether a file system may take name, one path component, for
// `.git` (see the package documentation for the spellings).
func IsDotGit(name string) bool {
	if !strings.ContainsAny(name, "gG") {
		return false
	}
	n := strings.ToLower(strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
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

// HasDotGit reports whether any component of rel, a slash-separated path, is one a
// file system may take for `.git` (IsDotGit).
func HasDotGit(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if IsDotGit(c) {
			return true
		}
	}
	return false
}

// hfsIgnorable reports the code points HFS+ drops when it compares names (git's list
// in utf8.c, is_hfs_dotgit).
func hfsIgnorable(r rune) bool {
	return (r >= 0x200c && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x206a && r <= 0x206f) || r == 0xfeff
}
