//go:build fnimage

package pkgcmd

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestFunctionImageStub(t *testing.T) {
	cmd := New()
	var stderr bytes.Buffer
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"update", "pkg@v2", "--plan"})
	if err := cmd.Execute(); !errors.Is(err, ErrNotInImage) {
		t.Errorf("pkg update in the function image: %v", err)
	}
	if !strings.Contains(stderr.String(), "needs the git CLI") {
		t.Errorf("stderr %q", stderr.String())
	}
}
