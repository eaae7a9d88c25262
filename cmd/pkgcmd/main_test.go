package pkgcmd

import (
	"os"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// TestMain runs the tests with a lock directory of their own (pkgupdate.LockDirEnv),
// so that they neither read nor leave lock files in the user's.
func TestMain(m *testing.M) {
	remove := testsupport.PrivateDir(pkgupdate.LockDirEnv)
	code := m.Run()
	remove()
	os.Exit(code)
}
