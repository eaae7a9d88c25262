package testsupport

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// ChownTree gives every file under p (p included, symbolic links themselves) to uid,
// as another user of a shared machine would own them; the test fails on an error.
// Only root may call it to effect.
func ChownTree(t *testing.T, p string, uid int) {
	t.Helper()
	err := filepath.Walk(p, func(q string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(q, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// HungGitRemote listens on a local port, accepts connections and never answers: a
// remote that hangs. It returns a git:// URL for it; the listener and connections
// close when the test ends. Without local TCP the test is skipped.
func HungGitRemote(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no local TCP:", err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(done)
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "git://" + l.Addr().String() + "/x"
}
