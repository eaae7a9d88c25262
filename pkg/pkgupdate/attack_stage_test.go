package pkgupdate

// Attacks on the staging area and the lock of `pkg update` by another user of a shared
// machine (docs/pkg-update.md, "All or nothing").

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// Another user plants a committed journal as the staging directory of DIR in DIR's
// world-writable parent (a shared /tmp), naming a file outside DIR: the update never
// recovers it, nor can it block DIR (which the user could not remove there): it stages
// inside DIR, leaves the planted directory alone and writes nothing outside DIR.
func TestUpdateRefusesAJournalPlantedInAWorldWritableParent(t *testing.T) {
	dir, _ := localPackage(t, nil)
	parent := filepath.Dir(dir)
	if err := os.Chmod(parent, 0o1777); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victimdir")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	s := filepath.Join(parent, ".krm-merge-"+filepath.Base(dir)+".update")
	rel, err := filepath.Rel(dir, filepath.Join(victim, "owned"))
	if err != nil {
		t.Fatal(err)
	}
	journal, err := json.Marshal(map[string]any{
		"dir":     dir,
		"entries": []map[string]any{{"path": filepath.ToSlash(rel), "existed": false}},
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, s, map[string]string{"new/0": "owned\n", "journal.json": string(journal)})
	if os.Geteuid() == 0 { // as the other user would own it
		err := filepath.WalkDir(s, func(p string, _ os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, 65534, 65534)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the planted directory to another user")
	}
	if _, err := Update(context.Background(), options(dir, t)); err != nil {
		t.Errorf("Update with another user's staging directory beside DIR: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(victim, "owned")); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the package: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(s, "journal.json")); err != nil {
		t.Errorf("the planted journal was removed: %v", err)
	}
}

// An update of a package is refused while one of a directory inside it holds its lock
// (another `pkg update` of a subpackage), and the other way round.
func TestUpdateRefusedWhileAPackageInsideOrAboveIsUpdated(t *testing.T) {
	dir, _ := localPackage(t, nil)
	sub := filepath.Join(dir, "hack")
	before := snapshot(t, dir)
	for _, tc := range []struct{ held, updated string }{{sub, dir}, {dir, sub}} {
		unlock, err := stage.Lock(tc.held)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Update(context.Background(), options(tc.updated, t))
		unlock()
		if err == nil || !strings.Contains(err.Error(), "update of "+tc.held+",") {
			t.Errorf("Update(%s) while %s is locked: %v; want a refusal naming %s", tc.updated, tc.held, err, tc.held)
		}
		if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
			t.Errorf("Update(%s) changed the package", tc.updated)
		}
	}
}

// A subpackage updated on its own and killed leaves its staging directory, the sibling
// .krm-merge-<sub>.update, inside the parent package: the parent's update does not read
// it as package files.
func TestSubpackageStagingIsNotPackageContent(t *testing.T) {
	dir, _ := localPackage(t, custom)
	writeFiles(t, dir, map[string]string{
		".krm-merge-sub.update/new/0":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n",
		".krm-merge-sub.update/journal.json":  "{}",
		"docs/.krm-merge-guide.update/x.yaml": "kind: [\n",
	})
	git(t, filepath.Dir(dir), "add", "-A")
	git(t, filepath.Dir(dir), "commit", "-qm", "leftovers")
	rep, err := Update(context.Background(), options(dir, t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Files {
		if strings.Contains(f.Path, ".krm-merge-") {
			t.Errorf("the update changed %s", f.Path)
		}
	}
	if got := read(t, filepath.Join(dir, ".krm-merge-sub.update/journal.json")); got != "{}" {
		t.Errorf("journal.json %q", got)
	}
}

// An update waits for another update of its package tree up to Options.LockTimeout,
// saying once which process it waits for, and goes on when that update ends.
func TestUpdateWaitsForTheLockAndNamesTheHolder(t *testing.T) {
	dir, _ := localPackage(t, nil)
	unlock, err := stage.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	opts := options(dir, t)
	opts.LockTimeout = 30 * time.Second
	opts.Log = func(s string) { said = append(said, s) }
	go func() {
		time.Sleep(stage.LockRetry + 500*time.Millisecond)
		unlock()
	}()
	if _, err := Update(context.Background(), opts); err != nil {
		t.Fatalf("an update waiting for another to end: %v", err)
	}
	pid := "process " + strconv.Itoa(os.Getpid())
	if len(said) != 1 || !strings.Contains(said[0], pid) || !strings.Contains(said[0], "waiting") {
		t.Errorf("said %q; want one line naming %s", said, pid)
	}
}
