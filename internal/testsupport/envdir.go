package testsupport

import (
	"fmt"
	"os"
)

// PrivateDir sets the environment variable name to a new, empty temporary directory
// for the rest of the test binary's life (a TestMain calls it before m.Run; the helper
// processes a test starts inherit it) and returns the func that removes the directory.
// Tests of pkg update's locks use it for KRM_MERGE_LOCK_DIR, so that they neither read
// nor leave lock files in the user's lock directory, which holds a file for every
// directory ever updated. It panics when no temporary directory can be made: the test
// binary cannot run as it should.
func PrivateDir(name string) (remove func()) {
	dir, err := os.MkdirTemp("", "krm-merge-test-")
	if err != nil {
		panic(fmt.Sprintf("testsupport: %s: %v", name, err))
	}
	if err := os.Setenv(name, dir); err != nil {
		panic(fmt.Sprintf("testsupport: %s: %v", name, err))
	}
	return func() { _ = os.RemoveAll(dir) }
}
