package pkgupdate

import (
	"sort"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		ref    string
		prefix string
		v      bool
		parts  int
		semver string
	}{
		{"v1.2.3", "", true, 3, "v1.2.3"},
		{"1.2.3", "", false, 3, "v1.2.3"},
		{"v1", "", true, 1, "v1"},
		{"v1.2", "", true, 2, "v1.2"},
		{"project-blueprint-v0.4.0", "project-blueprint-", true, 3, "v0.4.0"},
		{"catalog/app/v0.1.0", "catalog/app/", true, 3, "v0.1.0"},
		{"v1.2.3-rc.1+build.5", "", true, 3, "v1.2.3-rc.1"},
		{"app-2-1.2.3", "app-2-", false, 3, "v1.2.3"},
		{"v1.2.3-1.0", "", true, 3, "v1.2.3-1.0"},
		{"release_10.0.1", "release_", false, 3, "v10.0.1"},
	} {
		rv, ok := parseVersion(c.ref)
		want := refVersion{c.prefix, c.v, c.parts, c.semver}
		if !ok || rv != want {
			t.Errorf("%s: %+v %v, want %+v", c.ref, rv, ok, want)
		}
	}
	for _, ref := range []string{"main", "stable", "release/1.x", "v01.2.3", "abc123", "1.2.3.4", "x1.2.3", ""} {
		if rv, ok := parseVersion(ref); ok {
			t.Errorf("%s: parsed as %+v", ref, rv)
		}
	}
}

func TestNewestTagAndKind(t *testing.T) {
	tags := []string{"v1.2.3", "v1.2.10", "v1.10.0-rc.1", "1.9.0", "v2", "v1.9.0", "v1.9.0+meta", "x/v9.0.0", "v1.9.1-alpha", "v01.20.0"}
	for _, c := range []struct {
		cur, want string
		kind      OutdatedKind
	}{
		{"v1.2.3", "v1.9.0", KindMinor}, // prereleases left out for a stable release; v1.9.0 before v1.9.0+meta
		{"v1.9.0", "v1.9.0", KindNone},
		{"v1.9.1-alpha", "v1.10.0-rc.1", KindMinor}, // a prerelease's line takes prereleases
		{"1.2.0", "1.9.0", KindMinor},               // another form: no v
		{"v1", "v2", KindMajor},                     // one number: v2, not v1.9.0
		{"v1.2.9", "v1.9.0", KindMinor},
	} {
		cur, _ := parseVersion(c.cur)
		sorted := append([]string(nil), tags...)
		sort.Strings(sorted)
		name, nv, _ := newestTag(c.cur, cur, sorted, parseVersion)
		kind := KindNone
		if nv.compare(cur) > 0 {
			kind = kindOf(cur, nv)
		}
		if name != c.want || kind != c.kind {
			t.Errorf("%s: newest %s (%s), want %s (%s)", c.cur, name, kind, c.want, c.kind)
		}
	}
	a, _ := parseVersion("v1.2.3-rc.1")
	b, _ := parseVersion("v1.2.3")
	if k := kindOf(a, b); k != KindPatch {
		t.Errorf("v1.2.3-rc.1 to v1.2.3: %s, want patch (the same core)", k)
	}
	if v := lockedVersion("catalog/v1.0.0", "catalog/", b); v.semver != "v1.0.0" {
		t.Errorf("lockedVersion: %+v", v)
	}
}
