package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fencedBlock returns the body of the first ```lang block of the Markdown file md
// holding want.
func fencedBlock(t *testing.T, md, lang, want string) string {
	t.Helper()
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(b), "```"+lang+"\n")[1:] {
		body, _, ok := strings.Cut(part, "\n```")
		if ok && strings.Contains(body, want) {
			return body + "\n"
		}
	}
	t.Fatalf("%s: no ```%s block holding %q", md, lang, want)
	return ""
}

// renovateConfig is the part of a Renovate configuration docs/bots.md's test reads.
type renovateConfig struct {
	CustomManagers []struct {
		CustomType          string   `json:"customType"`
		ManagerFilePatterns []string `json:"managerFilePatterns"`
		MatchStrings        []string `json:"matchStrings"`
		DatasourceTemplate  string   `json:"datasourceTemplate"`
		VersioningTemplate  string   `json:"versioningTemplate"`
	} `json:"customManagers"`
	PostUpgradeTasks struct {
		Commands      []string `json:"commands"`
		FileFilters   []string `json:"fileFilters"`
		ExecutionMode string   `json:"executionMode"`
	} `json:"postUpgradeTasks"`
}

// kptfileRef reads upstream.git.ref, upstreamLock.git.ref and upstreamLock.git.commit.
func kptfileRef(t *testing.T, text string) (ref, lockRef, lockCommit string) {
	t.Helper()
	n, err := yaml.Parse(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	get := func(path ...string) string {
		v, err := n.Pipe(yaml.Lookup(path...))
		if err != nil || v == nil {
			t.Fatalf("%v: %v", path, err)
		}
		return yaml.GetValue(v)
	}
	return get("upstream", "git", "ref"), get("upstreamLock", "git", "ref"), get("upstreamLock", "git", "commit")
}

// The Renovate configuration of docs/bots.md, run as Renovate runs it: its file pattern
// picks Kptfiles, its match string (RE2, as Renovate's node-re2; Go's regexp is RE2
// too) finds upstream.git.repo and upstream.git.ref of a Kptfile kpt pkg get wrote, and
// of one with quoted values, never upstreamLock; replacing currentValue as Renovate
// does bumps upstream.git.ref alone. Its versioning keeps a tag's prefix, and its
// post-upgrade task is pkg update of the bumped package with --allow-dirty.
func TestBotsDocRenovateConfig(t *testing.T) {
	var cfg renovateConfig
	if err := json.Unmarshal([]byte(fencedBlock(t, "docs/bots.md", "json", "customManagers")), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.CustomManagers) != 1 {
		t.Fatalf("custom managers: %+v", cfg.CustomManagers)
	}
	m := cfg.CustomManagers[0]
	if m.CustomType != "regex" || m.DatasourceTemplate != "git-tags" || len(m.MatchStrings) != 1 || len(m.ManagerFilePatterns) != 1 {
		t.Fatalf("manager %+v", m)
	}
	// a pattern between slashes is a regex (Renovate's managerFilePatterns)
	fp := m.ManagerFilePatterns[0]
	if !strings.HasPrefix(fp, "/") || !strings.HasSuffix(fp, "/") {
		t.Fatalf("managerFilePatterns %q is not a /regex/", fp)
	}
	files := regexp.MustCompile(strings.TrimSuffix(strings.TrimPrefix(fp, "/"), "/"))
	for p, want := range map[string]bool{"Kptfile": true, "examples/blueprint/package/project/Kptfile": true,
		"Kptfile.yaml": false, "docs/my-Kptfile": false, "Kptfile/x": false} {
		if files.MatchString(p) != want {
			t.Errorf("file pattern on %s: %v, want %v", p, !want, want)
		}
	}
	re := regexp.MustCompile(m.MatchStrings[0])
	real, err := os.ReadFile("examples/blueprint/package/project/Kptfile")
	if err != nil {
		t.Fatal(err)
	}
	quoted := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\nupstream:\n  type: git\n  git:\n" +
		"    repo: \"https://example.com/up.git\"\n    directory: \"/\"\n    ref: \"v1.2.3\"\n  updateStrategy: resource-merge\n" +
		"upstreamLock:\n  type: git\n  git:\n    repo: \"https://example.com/up.git\"\n    directory: \"/\"\n    ref: \"v1.2.3\"\n" +
		"    commit: \"" + strings.Repeat("a", 40) + "\"\n"
	for _, c := range []struct{ name, text, repo, ref, bump string }{
		{"kpt's", string(real), "https://github.com/GoogleCloudPlatform/blueprints.git", "project-blueprint-v0.4.0", "project-blueprint-v0.4.4"},
		{"quoted", quoted, "https://example.com/up.git", "v1.2.3", "v2.0.0"},
	} {
		all := re.FindAllStringSubmatchIndex(c.text, -1)
		if len(all) != 1 {
			t.Errorf("%s Kptfile: %d matches, want 1 (upstream, not upstreamLock)", c.name, len(all))
			continue
		}
		idx := all[0]
		dep, cur := re.SubexpIndex("depName"), re.SubexpIndex("currentValue")
		if got := c.text[idx[2*dep]:idx[2*dep+1]]; got != c.repo {
			t.Errorf("%s Kptfile: depName %q, want %q", c.name, got, c.repo)
		}
		if got := c.text[idx[2*cur]:idx[2*cur+1]]; got != c.ref {
			t.Errorf("%s Kptfile: currentValue %q, want %q", c.name, got, c.ref)
		}
		_, lockRef0, commit0 := kptfileRef(t, c.text)
		bumped := c.text[:idx[2*cur]] + c.bump + c.text[idx[2*cur+1]:]
		ref, lockRef, commit := kptfileRef(t, bumped)
		if ref != c.bump || lockRef != lockRef0 || commit != commit0 {
			t.Errorf("%s Kptfile bumped: ref %q, lock %q at %q; want ref %q, the lock as it was", c.name, ref, lockRef, commit, c.bump)
		}
	}
	// versioning: regex versioning with a compatibility group, the tag's prefix
	vt, ok := strings.CutPrefix(m.VersioningTemplate, "regex:")
	if !ok {
		t.Fatalf("versioningTemplate %q", m.VersioningTemplate)
	}
	ver := regexp.MustCompile(vt)
	for tag, compat := range map[string]string{"project-blueprint-v0.4.0": "project-blueprint-", "v1.2.3": "", "1.4.0": "", "release_v2.0.1": "release_"} {
		sm := ver.FindStringSubmatch(tag)
		if sm == nil || sm[ver.SubexpIndex("compatibility")] != compat {
			t.Errorf("versioning on %s: %q, want compatibility %q", tag, sm, compat)
		}
	}
	for _, tag := range []string{"main", "stable", "v1.2"} {
		if ver.MatchString(tag) {
			t.Errorf("versioning matches %s", tag)
		}
	}
	pt := cfg.PostUpgradeTasks
	if len(pt.Commands) != 1 || pt.Commands[0] != "krm-merge pkg update {{{packageFileDir}}} --allow-dirty" ||
		pt.ExecutionMode != "update" || len(pt.FileFilters) != 1 || pt.FileFilters[0] != "**/*" {
		t.Errorf("postUpgradeTasks %+v", pt)
	}
}
