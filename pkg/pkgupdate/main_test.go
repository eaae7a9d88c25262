package pkgupdate

import (
	"os"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// TestMain runs the tests with a lock directory of their own (LockDirEnv), so that
// they neither read nor leave lock files in the user's.
func TestMain(m *testing.M) {
	remove := testsupport.PrivateDir(LockDirEnv)
	code := m.Run()
	remove()
	os.Exit(code)
}
