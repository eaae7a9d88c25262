package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// FuzzLoad: for any YAML functionConfig, Load never panics and either returns a Config
// whose every field holds a valid value (docs/function.md, "functionConfig") or a non-empty
// Errors whose entries each carry a message; it does not change its input and gives the
// same answer twice. Seeds: every functionConfig of fn-config-examples, the e2e case
// packages and the examples, and every other YAML document there (items are not
// functionConfigs, so they exercise the error paths).
func FuzzLoad(f *testing.F) {
	testsupport.SetupFuzz(f)
	for _, s := range testsupport.SeedFnConfigs(f) {
		f.Add(s)
	}
	for _, s := range testsupport.SeedDocs(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer testsupport.Guard(t, s)()
		fc, err := yaml.Parse(s)
		if err != nil {
			return
		}
		before := fc.MustString()
		cfg, err := Load(fc)
		if after := fc.MustString(); after != before {
			t.Fatalf("Load changed its input:\n%s\nto\n%s", before, after)
		}
		again, err2 := Load(fc)
		if fmt.Sprint(err) != fmt.Sprint(err2) || describe(cfg) != describe(again) {
			t.Fatalf("Load differs between two runs: %v / %v\n%s\n%s", err, err2, describe(cfg), describe(again))
		}
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a non-empty config.Errors: %T %v", err, err)
			}
			for _, e := range es {
				if strings.TrimSpace(e.Message) == "" || !strings.HasPrefix(e.Error(), ErrorPrefix) {
					t.Fatalf("error without a message: %#v", e)
				}
			}
			if cfg != nil {
				t.Fatalf("Load returned both a config and an error")
			}
			return
		}
		checkValid(t, cfg)
	})
}

// checkValid fails t unless every field of cfg holds a value Load documents.
func checkValid(t *testing.T, cfg *Config) {
	t.Helper()
	switch cfg.Mode {
	case vocab.ThreeWay, vocab.TwoWay, vocab.Apply:
	default:
		t.Fatalf("invalid mode %q", cfg.Mode)
	}
	switch cfg.OnConflict {
	case UpdatedWins, DestWins, FailOnConflict:
	default:
		t.Fatalf("invalid onConflict %q", cfg.OnConflict)
	}
	switch cfg.Schema {
	case SchemaKubernetes, SchemaNone:
	default:
		t.Fatalf("invalid schema %q", cfg.Schema)
	}
	if cfg.RoleAnnotation == "" {
		t.Fatalf("empty role annotation")
	}
	for _, p := range []string{cfg.OriginalPath, cfg.UpdatedPath, cfg.DestPath, cfg.SrcPath} {
		if strings.HasPrefix(p, "./") || (len(p) > 1 && strings.HasSuffix(p, "/")) {
			t.Fatalf("path %q is not cleaned", p)
		}
	}
}

// describe prints a Config for comparison (nil for none).
func describe(c *Config) string {
	if c == nil {
		return "nil"
	}
	inline := func(ns []*yaml.RNode) string {
		var b strings.Builder
		for _, n := range ns {
			b.WriteString(n.MustString())
		}
		return fmt.Sprintf("%v:%s", ns == nil, b.String())
	}
	return fmt.Sprintf("%s|%s|%q|%q|%q|%q|%v|%s|%v|%q|%s|%s|%s|%s", c.Mode, c.RoleAnnotation, c.OriginalPath,
		c.UpdatedPath, c.DestPath, c.SrcPath, c.MergeOnPath, c.OnConflict, c.KeepSources, c.AssociativeKeys,
		c.Schema, inline(c.Original), inline(c.Updated), inline(c.Src))
}
