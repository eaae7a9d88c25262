package pkgupdate

import (
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/semver"
)

// OutdatedKind says how far a package is behind its newest release.
type OutdatedKind string

// The kinds of OutdatedPackage.Kind. A version's kind compares the cores of the two
// releases (MAJOR.MINOR.PATCH, a prerelease counted by its core: v1.2.3-rc.1 to
// v1.3.0 is minor, v1.2.3-rc.1 to v1.2.3 patch), as semantic versioning orders them
// (semver.org, rule 11).
const (
	// KindNone: nothing newer (the newest release is the one the package has).
	KindNone OutdatedKind = ""
	// KindMajor: a newer major version.
	KindMajor OutdatedKind = "major"
	// KindMinor: a newer minor version of the same major.
	KindMinor OutdatedKind = "minor"
	// KindPatch: a newer patch of the same minor, or a release of the same core
	// (v1.2.3-rc.1 to v1.2.3, v1.2.3-rc.1 to v1.2.3-rc.2).
	KindPatch OutdatedKind = "patch"
	// KindCommit: the same ref at another commit: a branch that moved, a tag that
	// moved, or a ref without a version whose commit changed.
	KindCommit OutdatedKind = "commit"
	// KindPinned: the ref is a commit id; nothing newer can be said.
	KindPinned OutdatedKind = "pinned"
)

// refVersion is a ref split into its form and its version: project-blueprint-v0.4.0 is
// prefix "project-blueprint-", v true, 3 parts, semver v0.4.0.
type refVersion struct {
	prefix string
	v      bool
	parts  int
	semver string // canonical for golang.org/x/mod/semver: v MAJOR[.MINOR[.PATCH]][-pre]
}

// versionTail matches a version at the end of a ref: an optional v, one to three
// dot-separated numbers, an optional prerelease and build (semver.org's grammar; a
// number's leading zeros are refused by semver.IsValid).
var versionTail = regexp.MustCompile(`^(v?)([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$`)

// maxVersionRef is the longest ref parseVersion reads (git allows longer names; no
// release tag is this long).
const maxVersionRef = 256

// parseVersion splits ref into a prefix and a semantic version. The prefix is empty or
// ends with '-', '_' or '/' (release-, pkg/); of the splits where the rest is a valid
// version, the one with the most numbers wins, then the shortest prefix (app-2-1.2.3
// is app-2- and 1.2.3; v1.2.3-1.0 is v1.2.3 with prerelease 1.0). ok is false for a ref
// without a version (main, stable, a commit id read as one: see formOf's callers).
func parseVersion(ref string) (rv refVersion, ok bool) {
	if len(ref) > maxVersionRef {
		return rv, false
	}
	for i := 0; i < len(ref); i++ {
		if i > 0 && !strings.ContainsRune("-_/", rune(ref[i-1])) {
			continue
		}
		m := versionTail.FindStringSubmatch(ref[i:])
		if m == nil {
			continue
		}
		parts := 1
		for _, p := range m[3:5] {
			if p != "" {
				parts++
			}
		}
		sv := "v" + m[2] + m[3] + m[4] + m[5]
		if !semver.IsValid(sv) {
			continue
		}
		if ok && parts <= rv.parts {
			continue
		}
		rv, ok = refVersion{prefix: ref[:i], v: m[1] == "v", parts: parts, semver: sv}, true
	}
	return rv, ok
}

// sameForm reports whether a and b are versions of one form: the same prefix, both
// with or both without v, the same count of numbers (v1 and v1.2.3 are two forms: a
// tag v1 that follows every v1.x.y release is not older than v1.2.3).
func (a refVersion) sameForm(b refVersion) bool {
	return a.prefix == b.prefix && a.v == b.v && a.parts == b.parts
}

// prerelease reports whether the version has a prerelease part.
func (a refVersion) prerelease() bool { return semver.Prerelease(a.semver) != "" }

// compare is semver.Compare of the two versions: -1, 0 or +1.
func (a refVersion) compare(b refVersion) int { return semver.Compare(a.semver, b.semver) }

// newestTag returns, among tags (names without refs/tags/, sorted), the newest of the
// same form as current (named name), by semantic version precedence (semver.Compare;
// build metadata ignored, a tie at a newer version won by the first name in sorted
// order, so that the choice is the same on every run); parse is parseVersion or a
// memo of it. Prereleases count only when current is one (Renovate's ignoreUnstable
// default: a stable release is never proposed a prerelease). ok is false when no tag
// is newer than current.
func newestTag(name string, current refVersion, tags []string, parse func(string) (refVersion, bool)) (newest string, rv refVersion, ok bool) {
	newest, rv = name, current
	for _, t := range tags {
		if !strings.HasPrefix(t, current.prefix) {
			continue
		}
		v, vok := parse(t)
		if !vok || !v.sameForm(current) || v.prerelease() && !current.prerelease() {
			continue
		}
		if v.compare(rv) > 0 {
			newest, rv, ok = t, v, true
		}
	}
	return newest, rv, ok
}

// remoteTags is one remote's answer made ready for every package of it: its refs,
// its tag names sorted, and each name's version parsed once.
type remoteTags struct {
	refs   map[string]string // full ref name to commit, as gitfetch.Fetcher.ListRefs returns
	names  []string          // the tag names, without refs/tags/, sorted
	parsed map[string]parsedVersion
}

// parsedVersion is parseVersion's result.
type parsedVersion struct {
	rv refVersion
	ok bool
}

// newRemoteTags indexes refs.
func newRemoteTags(refs map[string]string) *remoteTags {
	rt := &remoteTags{refs: refs, parsed: map[string]parsedVersion{}}
	for name := range refs {
		if t, ok := strings.CutPrefix(name, "refs/tags/"); ok {
			rt.names = append(rt.names, t)
		}
	}
	sort.Strings(rt.names)
	return rt
}

// version is parseVersion(name), parsed once.
func (rt *remoteTags) version(name string) (refVersion, bool) {
	if p, ok := rt.parsed[name]; ok {
		return p.rv, p.ok
	}
	rv, ok := parseVersion(name)
	rt.parsed[name] = parsedVersion{rv, ok}
	return rv, ok
}

// under returns the tag names starting with scope+prefix, without scope, sorted.
func (rt *remoteTags) under(scope, prefix string) []string {
	i := sort.SearchStrings(rt.names, scope+prefix)
	var out []string
	for ; i < len(rt.names) && strings.HasPrefix(rt.names[i], scope+prefix); i++ {
		out = append(out, rt.names[i][len(scope):])
	}
	return out
}

// kindOf is the kind of the move from version a to version b (b newer), by their
// cores (semver.org rule 11: a prerelease by its core).
func kindOf(a, b refVersion) OutdatedKind {
	switch {
	case semver.Major(a.semver) != semver.Major(b.semver):
		return KindMajor
	case semver.MajorMinor(a.semver) != semver.MajorMinor(b.semver):
		return KindMinor
	default:
		return KindPatch
	}
}
