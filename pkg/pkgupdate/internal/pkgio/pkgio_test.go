package pkgio

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const license = `# Copyright 2021 Google LLC
#
# Licensed under the Apache License, Version 2.0 (the "License");

`

func TestReadClassifiesFiles(t *testing.T) {
	root := writeTree(t, map[string]string{
		"Kptfile":                  "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n",
		"setters.yaml":             license + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\n",
		"patch.yaml":               "- op: add\n  path: /x\n  value: 1\n",
		"values.yml":               "replicas: 2\n",
		"empty.yaml":               "# nothing here\n",
		"README.md":                "# p\n",
		"ignored/app.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n",
		".krmignore":               "ignored/\n",
		"sub/Kptfile":              "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n",
		"sub/ignored/app.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub-not-ignored\n",
		"sub/kustomization.yaml":   "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n",
		".git/config":              "[core]\n",
		"skipped/x.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: skipped\n",
		"multi.yaml":               "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\n# about b\n\napiVersion: v1\nkind: B\nmetadata:\n  name: b\n",
		"deploy/with-tabs.json":    "{}\n",
		"deploy/ingress.yaml.orig": "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n",
	})
	tree, err := Read(root, Options{PathPrefix: "dest/", Skip: func(rel string, dir bool) bool { return rel == "skipped" }})
	if err != nil {
		t.Fatal(err)
	}
	var krm, text []string
	for p, f := range tree.Files {
		if f.KRM() {
			krm = append(krm, p)
		} else {
			text = append(text, p)
		}
	}
	sort.Strings(krm)
	sort.Strings(text)
	wantKRM := "Kptfile multi.yaml setters.yaml sub/Kptfile sub/ignored/app.yaml sub/kustomization.yaml"
	wantText := ".krmignore README.md deploy/ingress.yaml.orig deploy/with-tabs.json empty.yaml ignored/app.yaml patch.yaml values.yml"
	if got := strings.Join(krm, " "); got != wantKRM {
		t.Errorf("KRM files: %s\nwant        %s", got, wantKRM)
	}
	if got := strings.Join(text, " "); got != wantText {
		t.Errorf("text files: %s\nwant        %s", got, wantText)
	}
	m := tree.Files["multi.yaml"]
	if len(m.Docs) != 2 || m.Docs[1].Head != "# about b" {
		t.Fatalf("multi.yaml docs: %+v", m.Docs)
	}
	a := m.Docs[1].Node.GetAnnotations()
	if a[kioutil.PathAnnotation] != "dest/multi.yaml" || a[kioutil.IndexAnnotation] != "1" {
		t.Errorf("annotations %v", a)
	}
	if s := tree.Files["setters.yaml"]; s.Header != license || s.Docs[0].Head != "" {
		t.Errorf("header %q, first document's head %q", s.Header, s.Docs[0].Head)
	}
}

// Encode writes back what Read read, header and document comments in place, byte for
// byte for files in kpt's own formatting.
func TestEncodeRoundTrip(t *testing.T) {
	for name, src := range map[string]string{
		"header with a blank line":   license + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters # kpt-set: x\ndata:\n  a: b\n",
		"header on the first field":  "# Copyright\n# line two\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"between documents":          "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\n# section two\n\n# about b\napiVersion: v1\nkind: B\nmetadata:\n  name: b\n",
		"wide sequences":             "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n    - image: x\n      configPath: s.yaml\n",
		"compact sequences":          "apiVersion: v1\nkind: A\nmetadata:\n  name: a\nitems:\n- a\n- b\n",
		"leading separator":          "---\n# Copyright\n\napiVersion: v1\nkind: A\nmetadata:\n  name: a\n",
		"comment before a separator": "# about the file\n---\napiVersion: v1\nkind: A\nmetadata:\n  name: a\n",
	} {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse([]byte(src), "f.yaml")
			if err != nil || docs == nil {
				t.Fatalf("Parse: %v, %v", docs, err)
			}
			header := TakeHeader([]byte(src), docs)
			out, err := Encode(header, docs)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != src {
				t.Errorf("got\n%s\nwant\n%s", out, src)
			}
			// Encode leaves the nodes' annotations alone
			if docs[0].Node.GetAnnotations()[kioutil.PathAnnotation] != "f.yaml" {
				t.Error("Encode removed the path annotation from the node")
			}
		})
	}
}

func TestReadErrorsNameTheFile(t *testing.T) {
	root := writeTree(t, map[string]string{"bad.yaml": "apiVersion: v1\nkind: A\nmetadata: {name: [\n"})
	_, err := Read(root, Options{})
	var pe *Error
	if !errors.As(err, &pe) || pe.Path != "bad.yaml" {
		t.Errorf("malformed YAML: %v", err)
	}
	root = writeTree(t, map[string]string{"a.yaml": "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n"})
	if err := os.Symlink("a.yaml", filepath.Join(root, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err = Read(root, Options{})
	if !errors.As(err, &pe) || pe.Path != "link.yaml" || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlink: %v", err)
	}
}
