package config

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// pathKeyConfigs returns, for a path key, a complete path selection of its mode with
// that key set to value, in both forms: the ConfigMap's data and the ResourceMerge's
// spec (value double-quoted, so escapes such as \\ and \0 are YAML's).
func pathKeyConfigs(key, value string) map[string]string {
	keys := map[string]string{"originalPath": "o", "updatedPath": "u", "destPath": "d"}
	mode := "3way"
	if key == KeySrcPath {
		keys, mode = map[string]string{"srcPath": "s", "destPath": "d"}, "2way"
	}
	keys[key] = value
	kv := []string{"mode", mode}
	body := "mode: " + mode + "\n"
	for _, k := range []string{KeyOriginalPath, KeyUpdatedPath, KeySrcPath, KeyDestPath} {
		if v, ok := keys[k]; ok {
			kv = append(kv, k, v)
			body += k + ": " + strconv.Quote(v) + "\n"
		}
	}
	return map[string]string{"data": cm(kv...), "spec": typed(body)}
}

// A path key is cleaned with both separators before the package-root check: roles
// reads a backslash as a slash (roles.Clean), so `u\..\..` is `..` there and must be
// refused here; so are absolute paths in either spelling and control characters.
func TestPathKeysStayInThePackage(t *testing.T) {
	for _, tc := range []struct{ value, msg string }{
		{`u\..\..`, "leaves the package root"},
		{`u\..\..\x`, "leaves the package root"},
		{`..\x`, "leaves the package root"},
		{`a/..\..`, "leaves the package root"},
		{`.\..`, "leaves the package root"},
		{`\x`, "is absolute"},
		{`/x`, "is absolute"},
		{`C:\x`, "is absolute"},
		{"a\x00b", "control character"},
		{"a\nb", "control character"},
		{"a\tb", "control character"},
		{"a\x7fb", "control character"},
		{"a\u0085b", "control character"},
	} {
		for _, key := range allPathKeys {
			for form, text := range pathKeyConfigs(key, tc.value) {
				name := form + "." + key + "=" + strconv.Quote(tc.value)
				_, err := Load(yaml.MustParse(text))
				var es Errors
				if !errors.As(err, &es) {
					t.Errorf("%s: accepted (err %v)", name, err)
					continue
				}
				if es[0].Field != form+"."+key || !strings.Contains(es[0].Message, tc.msg) {
					t.Errorf("%s: first problem %q %q, want field %s and %q", name, es[0].Field, es[0].Message, form+"."+key, tc.msg)
				}
				if es[0].Value != tc.value {
					t.Errorf("%s: Value %q, want what was written", name, es[0].Value)
				}
				if strings.ContainsAny(es[0].Message, "\x00\n\t\x7f\u0085") {
					t.Errorf("%s: the message holds a control character: %q", name, es[0].Message)
				}
			}
		}
	}
}

// Backslashes inside the package are separators: the loaded directory is spelled with
// slashes, as roles compares it with the items' paths, and two keys naming one directory
// in different spellings are caught.
func TestPathKeysBackslashInside(t *testing.T) {
	for value, want := range map[string]string{`a\b`: "a/b", `.\dest\`: "dest", `a\..\b`: "b", `x\.`: "x"} {
		for form, text := range pathKeyConfigs(KeyUpdatedPath, value) {
			c, err := Load(yaml.MustParse(text))
			if err != nil {
				t.Errorf("%s %q: %v", form, value, err)
				continue
			}
			if c.UpdatedPath != want {
				t.Errorf("%s %q: UpdatedPath %q, want %q", form, value, c.UpdatedPath, want)
			}
		}
	}
	_, err := Load(yaml.MustParse(cm("originalPath", "o", "updatedPath", `d\.`, "destPath", "d")))
	var es Errors
	if !errors.As(err, &es) || !strings.Contains(es[0].Message, `both name "d"`) {
		t.Errorf("updatedPath d\\. and destPath d: got %v", err)
	}
}

// Validate checks the path keys of a Config built by hand as Load checks them.
func TestValidatePaths(t *testing.T) {
	for _, tc := range []struct{ value, msg string }{
		{`u\..\..`, "leaves the package root"},
		{"../x", "leaves the package root"},
		{"/x", "is absolute"},
		{"a\x00", "control character"},
	} {
		c := Defaults()
		c.OriginalPath, c.UpdatedPath, c.DestPath = "o", tc.value, "d"
		err := c.Validate()
		var es Errors
		if !errors.As(err, &es) || es[0].Field != KeyUpdatedPath || !strings.Contains(es[0].Message, tc.msg) {
			t.Errorf("UpdatedPath %q: got %v, want %q on updatedPath", tc.value, err, tc.msg)
		}
	}
	c := Defaults()
	c.OriginalPath, c.UpdatedPath, c.DestPath = "o", `./u/`, "d"
	if err := c.Validate(); err != nil {
		t.Errorf("./u/: %v", err)
	}
}
