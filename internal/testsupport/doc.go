// Package testsupport holds the helpers krm-merge's tests share; only tests import it
// (no production package does, and architecture_test.go keeps it that way).
//
//   - Seed inputs (seeds.go): SeedFiles, SeedDocs, SeedFnConfigs, SeedTriples and
//     SeedPackages find the seed inputs of the fuzz and property tests in the repository
//     itself: the YAML files of the e2e case packages (e2e/cases), the examples
//     (examples/) and the functionConfig examples (fn-config-examples/), read at test
//     time, so a new case package or example seeds the fuzzers without a corpus update.
//   - git merge-file (gitmergefile.go): GitMergeFile runs `git merge-file` for the
//     differential tests that hold krm-merge's line and element merges to git's
//     (internal/textmerge, pkg/merge's value merge, pkg update's conflict markers);
//     SameSides and Mutate generate their edited texts.
//   - Node trees (nodediff.go): NodeDiff compares YAML node trees for tests that check a
//     direct node edit against kyaml's own calls: the kind, tag, style, value, anchor,
//     comments and content of every node, in order.
//
// Fuzz targets (fuzzguard.go): SetupFuzz and Guard make krm-merge's fuzz targets run at volume and report a slow or
// hanging input as a failure with the input saved, instead of going quiet. //
// Every target calls Setup before f.Fuzz and defers Guard's result first thing in its
// fuzz function:
//
//	func FuzzX(f *testing.F) {
//		testsupport.SetupFuzz(f)
//		...
//		f.Fuzz(func(t *testing.T, in string) {
//			defer testsupport.Guard(t, in)()
//			...
//		})
//	}
//
// # Why the engine needs a bound on minimization (Setup)
//
// Go's fuzzing engine minimizes every input that finds new coverage, not only failing
// ones, for up to -test.fuzzminimizetime (60 s by default). Minimizing a []byte or string
// tries cutting its tail, then removing each byte, then each range of bytes: a number of
// executions that grows with the square of the input's length. A minimization that
// reaches its time limit is lost: the coordinator's deadline, set when it sends the
// request, fires before the worker's own, so it treats the worker as interrupted, stops
// it, and discards the minimization's executions and result (internal/fuzz, worker.minimize).
// With inputs of a few kilobytes (a ResourceList of a package) nearly every mutation of
// a seed finds new coverage, and each one costs a minute of uncounted work and a worker
// restart: the execution count stops moving while the worker runs at full speed. That is
// what made FuzzRead report ~30 executions in 3 minutes. Setup bounds minimization by a
// number of executions instead (MinimizeExecs, unless -test.fuzzminimizetime is given):
// the worker then stops by itself and reports them.
//
// # Why the time budget is checked in the fuzz function's goroutine (Guard)
//
// A time.AfterFunc that panics runs in a goroutine of its own. In a fuzz worker that
// kills the process: the coordinator records "fuzzing process hung or terminated
// unexpectedly" without the panic's message (the worker's output is discarded), does not
// minimize the input, and records nothing at all when it is itself stopping (at the end
// of -fuzztime, or at a minimization's deadline), which it then takes for an
// interruption. The engine also arms its own such timer, 10 s, in every execution, so a
// longer guard of a target's own never fires. Guard therefore checks the elapsed time
// when the execution returns, in the fuzz function's goroutine: an input slower than
// Budget fails like any other finding, is minimized and saved under testdata/fuzz. An
// input that does not return before HangAfter (under the engine's 10 s) gets its
// goroutine dump and the input written to a file (HangDir) and to stderr, and the
// process stops there: the coordinator saves the input as a crasher, and the file says
// where it hung.
package testsupport
