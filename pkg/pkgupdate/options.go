package pkgupdate

import (
	"time"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Options says what to update and how.
type Options struct {
	// Dir is the package directory.
	Dir string
	// Version is the upstream tag, branch or commit to update to; "" is the Kptfile's
	// upstream.git.ref (resolved anew, so a branch moves to its current commit).
	Version string
	// Repo, Directory and From give the upstream of a directory without a Kptfile
	// upstream (a kustomize base or plain manifests vendored from git): the repository,
	// the package's directory in it ("" is the root) and the version the local copy was
	// made from. Version is then required. Nothing is recorded. With a Kptfile upstream
	// they must be empty.
	Repo, Directory, From string
	// Merge holds the merge settings: the functionConfig keys that decide how resources
	// merge, as the function takes them (config.MergeSettings; docs/function.md,
	// "functionConfig", says what each does). The others are pkg update's own business:
	// it merges 3-way, gives each tree its role, writes only the package and
	// fetches the sources, and a plan is Plan. nil is config.DefaultMergeSettings(),
	// the function's defaults (onConflict updated; the command's are
	// config.PkgUpdateDefaults()). Under OnConflict config.FailOnConflict the update
	// fails writing nothing; under config.MarkConflicts it writes conflict markers
	// (docs/pkg-update.md, "Resolving conflicts by hand"). Update refuses invalid
	// settings (config.MergeSettings.Validate's errors).
	Merge *config.MergeSettings
	// Plan computes everything and writes nothing; the report holds the field plan and
	// each file's diff.
	Plan bool
	// AllowDirty updates a package whose git working tree has uncommitted changes.
	AllowDirty bool
	// CacheDir is the git cache, a directory of bare repositories shared by runs; "" is
	// $KRM_MERGE_CACHE_DIR, else krm-merge/git under the user's cache directory
	// (os.UserCacheDir, e.g. ~/.cache/krm-merge/git).
	CacheDir string
	// MaxFileSize is the size limit in bytes of every file read, in the package and in
	// both upstream releases; 0 is DefaultMaxFileSize (64 MiB). A file over it fails
	// the update (ErrTooLarge, naming the file). Negative is an error.
	MaxFileSize int64
	// GitTimeout bounds every git command (a hung remote, a stalled transfer) and the
	// wait for another run's lock on a cached repository; 0 is $KRM_MERGE_GIT_TIMEOUT
	// (a Go duration such as 90s), else 5 minutes. Negative is an error.
	GitTimeout time.Duration
	// Timeout bounds the whole update (every git command, the merge); past it the
	// update stops, writes nothing and returns ErrDeadline. 0 is DefaultTimeout (30
	// minutes); negative is an error. Each remote is asked for its refs once per
	// update.
	Timeout time.Duration
	// MaxFetchSize bounds the bytes one git fetch downloads into the cache (each
	// release is fetched without its history); 0 is gitfetch.DefaultMaxFetchSize (1
	// GiB). A fetch over it is stopped, nothing of it kept, and the update fails
	// (wrapping gitfetch.ErrTooLarge). Negative is an error.
	MaxFetchSize int64
	// LockTimeout is how long the update waits for another update of the package tree
	// (of DIR, a directory above it or one inside it) to finish, telling Log once which
	// process it waits for; past it the update fails naming that process. 0 waits only
	// a second (stage.LockRetry); the command's default is DefaultLockTimeout. Negative
	// is an error.
	LockTimeout time.Duration
	// Log, when set, receives messages a person should see while the update runs
	// (waiting for another run's lock on the git cache or on the package tree), one
	// line each, without "\n".
	Log func(string)
	// Trace, when set, is told how long each step of the update took, once per step
	// when the update ends (but on an early error): "check" (the lock, an interrupted
	// update's recovery, the check for uncommitted changes), "fetch" (resolving and
	// exporting both releases, reading the three trees), "prepare" (kpt pkg get's
	// bookkeeping on the releases), "merge" and "write" (staging and the
	// all-or-nothing write), the subpackages' steps added to their package's. For
	// benchmarks (bench/README.md, "Fleet"); it never changes what the update does.
	Trace func(step string, d time.Duration)

	// releases, when set, is a fleet run's fetch step shared by its packages
	// (UpdateFleet); nil: the update resolves and exports its own.
	releases *releases
	// statuses, when set, is a fleet run's dirty check: one git status per work tree
	// for all its packages; nil: the update runs its own.
	statuses *gitfetch.StatusCache
}

// functionConfig is the function's config for the merges of an update with merge
// settings m (nil: config.DefaultMergeSettings()): m's own (config.MergeSettings.Config),
// 3-way; the roles are the trees' (function.Merge).
func functionConfig(m *config.MergeSettings) *config.Config {
	if m == nil {
		d := config.DefaultMergeSettings()
		m = &d
	}
	c := m.Config()
	c.Mode = vocab.ThreeWay
	return c
}

// ErrTimeout is wrapped by the error of an update stopped at a time limit: a git
// command that ran past Options.GitTimeout, or the cache lock another run held past it.
var ErrTimeout = gitfetch.ErrTimeout

// TimeoutEnv is the environment variable that sets the git time limit when
// Options.GitTimeout is zero (a Go duration, as "5m").
const TimeoutEnv = gitfetch.TimeoutEnv

// LockDirEnv is the environment variable that names the directory of the per-user
// lock files by which updates of one package tree wait for each other (else
// ~/.cache/krm-merge/locks; docs/pkg-update.md).
const LockDirEnv = stage.LockDirEnv
