package function_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
)

// tabList is a 3-way ResourceList of one ConfigMap whose data.f is o, u and d in the
// three roles (each written double-quoted, as Go quotes it), with functionConfig fc.
func tabList(fc, o, u, d string) string {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, it := range []struct{ role, v string }{{"original", o}, {"updated", u}, {"dest", d}} {
		b.WriteString("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    annotations: {config.kubernetes.io/merge-source: " +
			it.role + "}\n  data:\n    f: " + goQuote(it.v) + "\n")
	}
	if fc != "" {
		b.WriteString("functionConfig:\n" + indent(fc, "  "))
	}
	return b.String()
}

// goQuote is v as a YAML double-quoted scalar (YAML's escapes are a superset of the
// ones used here).
func goQuote(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`)
	return `"` + r.Replace(v) + `"`
}

// binaryPath runs input through the binary's ResourceList path (resourcelist.Run with
// the function's processor) and returns stdout, stderr and the error; kyaml's path
// must not be needed.
func binaryPath(t *testing.T, input string) (string, string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	err := resourcelist.Run(function.Processor{}, strings.NewReader(input), &out, &errw,
		func(io.Reader) error { t.Fatal("the fast reader declined the input"); return nil }, resourcelist.Memory{})
	return out.String(), errw.String(), err
}

// TestTabFirstValueIsWritten: a multi-line value whose first line starts with a tab,
// changed on both sides (merged inside, as git merge-file merges it), with valueMerge
// off (a conflict, updated wins) and as a conflict alone, is written and read back:
// exit 0, the ConfigMap with the expected value, the results' values included. yaml.v3
// writes such a value as a literal block it cannot read ("found a tab character where
// an indentation space is expected"), which failed the whole run.
func TestTabFirstValueIsWritten(t *testing.T) {
	off := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\ndata: {valueMerge: \"false\"}\n"
	for _, c := range []struct {
		name, fc, o, u, d, want string
	}{
		{"merged inside", "", "\tt\n1\n2\n3\n", "\tt\nX\n2\n3\n", "\tt\n1\n2\nY\n", "\tt\nX\n2\nY\n"},
		{"valueMerge false", off, "\tt\n1\n2\n3\n", "\tt\nX\n2\n3\n", "\tt\n1\n2\nY\n", "\tt\nX\n2\n3\n"},
		{"conflict alone", "", "", "\t\n", "line 199", "\t\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := tabList(c.fc, c.o, c.u, c.d)
			for path, runIt := range map[string]func() (string, error){
				"framework.Execute": func() (string, error) {
					rl, err := run(t, in)
					return rl.MustString(), err
				},
				"binary": func() (string, error) {
					out, errw, err := binaryPath(t, in)
					if errw != "" {
						t.Errorf("stderr: %s", errw)
					}
					return out, err
				},
			} {
				out, err := runIt()
				if err != nil {
					t.Fatalf("%s: %v\n%s", path, err, out)
				}
				rl, err := yaml.Parse(out)
				if err != nil {
					t.Fatalf("%s: output does not read back: %v\n%s", path, err, out)
				}
				its := items(t, rl)
				if len(its) != 1 {
					t.Fatalf("%s: %d items, want 1:\n%s", path, len(its), out)
				}
				got, err := its[0].Pipe(yaml.Lookup("data", "f"))
				if err != nil || got == nil || got.YNode().Value != c.want {
					t.Fatalf("%s: data.f = %v, want %q:\n%s", path, got, c.want, out)
				}
				if res := resultsOf(rl); !strings.Contains(res, "path: data.f") {
					t.Errorf("%s: no result for data.f:\n%s", path, res)
				}
			}
		})
	}
}

// TestTabFirstBlockPassesThrough: an item with no role holding a value that starts
// with a tab in a block with an indentation indicator (which yaml.v3 reads, keeping the
// literal style, and writes without the indicator, as text it cannot read) comes out
// as text that reads back as the same value, through framework.Execute (re-encoded)
// and the binary's path (its input bytes kept).
func TestTabFirstBlockPassesThrough(t *testing.T) {
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    f: |2\n      \tt\n      1\n"
	var outs []string
	rl, err := run(t, in)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, rl.MustString())
	out, errw, err := binaryPath(t, in)
	if err != nil {
		t.Fatalf("%v: %s", err, errw)
	}
	outs = append(outs, out)
	for i, out := range outs {
		rl, err := yaml.Parse(out)
		if err != nil {
			t.Fatalf("output %d does not read back: %v\n%s", i, err, out)
		}
		its := items(t, rl)
		if len(its) != 1 {
			t.Fatalf("output %d: %d items", i, len(its))
		}
		if f, err := its[0].Pipe(yaml.Lookup("data", "f")); err != nil || f == nil || f.YNode().Value != "\tt\n1\n" {
			t.Fatalf("output %d: data.f = %v\n%s", i, f, out)
		}
	}
}
