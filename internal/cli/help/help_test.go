package help

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
