package fncmd

import (
	"strings"
	"testing"
)

func TestHelpDocumentsEveryKey(t *testing.T) {
	h := Text()
	for _, k := range []string{"mode", "roleAnnotation", "originalPath", "updatedPath", "destPath", "srcPath", "mergeOnPath", "onConflict", "keepSources", "associativeKeys", "schema", "original", "updated", "src"} {
		if !strings.Contains(h, "  "+k+" (") {
			t.Errorf("--help does not document %q:\n%s", k, h)
		}
	}
}

// The help says where pkg update's conflict policy differs from the function's default.
func TestHelpGivesPkgUpdateDefault(t *testing.T) {
	h := Text()
	for _, want := range []string{"onConflict (string, default updated)", "Its --on-conflict defaults to mark, not\nto the function's updated"} {
		if !strings.Contains(h, want) {
			t.Errorf("--help lacks %q:\n%s", want, h)
		}
	}
}
