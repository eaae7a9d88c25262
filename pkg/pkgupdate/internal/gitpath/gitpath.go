package gitpath

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

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

// Key is the form under which a case-insensitive or normalising file system (NTFS,
// APFS, HFS+) compares name, one path component: two names with one Key may open one
// file. It is name without HFS+'s ignorable code points, in Unicode normal form C,
// each rune replaced by the least rune of its case-folding orbit (so `ſ` is `s`, the
// Kelvin sign is `k`), cut at an NTFS alternate data stream (`:`) and without trailing
// dots and spaces (which Windows drops). Compare Keys, never show them.
func Key(name string) string {
	n := norm.NFC.String(strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return r
	}, name))
	n = strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < least {
				least = f
			}
		}
		return least
	}, n)
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i]
	}
	return strings.TrimRight(n, ". ")
}
