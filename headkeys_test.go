package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// A repeated `annotations` (or `metadata`) key with one empty copy is a repeated key like
// any other: the binary exits 1 with an error result naming the resource, the file, the
// key's path and both lines, and writes no items. kyaml's annotation edits, made before
// any processor runs, silently drop the empty copy; the fast reader declines such input
// and the kyaml path checks it as read (pkg/function/internal/inputcheck).
func TestRepeatedHeadKeysAreErrors(t *testing.T) {
	// file: the file the result names ("": the path annotation is in the repeated map's
	// second copy, so the item's file is not known)
	for name, tc := range map[string]struct{ item, path, lines, file string }{
		"annotations, the second empty": {"  metadata:\n    name: x\n    annotations:\n      internal.config.kubernetes.io/path: f.yaml\n    annotations:\n  data: {a: b}\n",
			"metadata.annotations", "at lines 5 and 7", "f.yaml"},
		"annotations, the first empty": {"  metadata:\n    name: x\n    annotations:\n    annotations:\n      internal.config.kubernetes.io/path: f.yaml\n  data: {a: b}\n",
			"metadata.annotations", "at lines 5 and 6", ""},
		"metadata, the second empty": {"  metadata:\n    name: x\n    annotations:\n      internal.config.kubernetes.io/path: f.yaml\n  data: {a: b}\n  metadata:\n",
			"metadata", "at lines 3 and 8", "f.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			file := writeList(t, func(w io.Writer) {
				fmt.Fprint(w, "- apiVersion: v1\n  kind: ConfigMap\n"+tc.item)
			})
			r := runFunction(t, name, file, true, 2*time.Minute)
			if r.exit != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.exit, r.out)
			}
			if strings.Contains(string(r.out), "items:\n-") {
				t.Errorf("items written:\n%s", r.out)
			}
			rs := r.results(t)
			mustMessage(t, rs, "error", "is given twice in one map, "+tc.lines+" of the resource")
			found := false
			for _, res := range rs {
				s := fmt.Sprint(res)
				if strings.Contains(s, "path:"+tc.path+"]") && strings.Contains(s, "path:"+tc.file) && strings.Contains(s, "name:x") {
					found = true
				}
			}
			if !found {
				t.Errorf("no result names field %s, file %q and resource x: %v", tc.path, tc.file, rs)
			}
		})
	}
}
