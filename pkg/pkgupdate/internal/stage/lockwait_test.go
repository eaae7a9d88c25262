package stage

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An update waits for another's lock up to its bound, saying once which process it
// waits for, then fails naming it; one released meanwhile is taken.
func TestLockWaitNamesTheHolderAndTimesOut(t *testing.T) {
	dir := setup(t)
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	pid := "process " + strconv.Itoa(os.Getpid())
	var said []string
	log := func(s string) { said = append(said, s) }
	start := time.Now()
	_, err = LockWait(context.Background(), dir, LockRetry+500*time.Millisecond, log)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), pid) || !strings.Contains(err.Error(), "1.5s") {
		t.Errorf("a lock held past the wait: %v; want an error naming %s and the wait", err, pid)
	}
	if took < LockRetry+500*time.Millisecond || took > 10*time.Second {
		t.Errorf("gave up after %v, want about 1.5s", took)
	}
	if len(said) != 1 || !strings.Contains(said[0], pid) || !strings.Contains(said[0], "waiting") {
		t.Errorf("said %q; want one line saying it waits for %s", said, pid)
	}

	// no wait: fails at once (the short retry for a killed update's leftover aside)
	said = nil
	start = time.Now()
	if _, err := LockWait(context.Background(), dir, 0, log); err == nil || !strings.Contains(err.Error(), pid) {
		t.Errorf("no wait: %v", err)
	}
	if took := time.Since(start); took > LockRetry+time.Second || len(said) != 0 {
		t.Errorf("no wait: gave up after %v, said %q", took, said)
	}

	// released while waiting: taken
	said = nil
	go func() {
		time.Sleep(LockRetry + 300*time.Millisecond)
		unlock()
	}()
	unlock2, err := LockWait(context.Background(), dir, 30*time.Second, log)
	if err != nil {
		t.Fatalf("a lock released during the wait: %v", err)
	}
	unlock2()
	if len(said) != 1 {
		t.Errorf("said %q; want one line", said)
	}

	// the caller's deadline ends the wait
	unlock3, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock3()
	ctx, cancel := context.WithTimeout(context.Background(), LockRetry+200*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := LockWait(ctx, dir, time.Minute, nil); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("a wait past the caller's deadline: %v after %v", err, time.Since(start))
	}
}
