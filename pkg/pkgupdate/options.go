package pkgupdate

import (
	"time"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/schema"
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
	// Merge holds the merge settings (the functionConfig keys pkg update takes: see
	// MergeOptions); nil is DefaultMergeOptions().
	Merge *MergeOptions
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
}

// MergeOptions are the merge settings of an update: the functionConfig keys that mean
// something to pkg update (docs/pkg-update.md; docs/function.md, "functionConfig", says
// what each does). The others are pkg update's own business: it merges 3-way, chooses
// the roles by directory, writes only the package and fetches the sources, and a plan
// is Options.Plan. The zero value is not the defaults: start from
// DefaultMergeOptions.
type MergeOptions struct {
	// OnConflict decides conflicts (onConflict): config.UpdatedWins, DestWins,
	// FailOnConflict (the update fails, writing nothing) or MarkConflicts (conflict
	// markers in the files; docs/pkg-update.md, "Resolving conflicts by hand").
	OnConflict config.ConflictPolicy
	// RoleAnnotation is the annotation whose value names an item's role
	// (roleAnnotation); a resource of the package or of a release that carries it takes
	// that role, as in the function.
	RoleAnnotation string
	// MergeOnPath makes the file path part of identity (mergeOnPath).
	MergeOnPath bool
	// ValueMerge merges inside a value changed on both sides before calling it a
	// conflict (valueMerge).
	ValueMerge bool
	// Schema is where merge keys come from (schema).
	Schema config.SchemaSource
	// AssociativeKeys make a list associative where no schema names its merge key
	// (associativeKeys), in precedence order.
	AssociativeKeys []string
	// MergeKeys say how lists of given kinds and paths merge (mergeKeys).
	MergeKeys []schema.ListOverride
	// FieldRules override the merge at given fields (fieldRules).
	FieldRules []fieldrules.Rule
	// ShowSecretValues prints a Secret's data and stringData values in conflict and
	// plan lines (showSecretValues); without it they are redacted.
	ShowSecretValues bool
}

// DefaultMergeOptions returns the functionConfig's defaults (config.Defaults): updated
// wins conflicts, the default role annotation, values merged inside, the Kubernetes
// schema and the default associative keys.
func DefaultMergeOptions() *MergeOptions {
	d := config.Defaults()
	return &MergeOptions{OnConflict: d.OnConflict, RoleAnnotation: d.RoleAnnotation, MergeOnPath: d.MergeOnPath,
		ValueMerge: d.ValueMerge, Schema: d.Schema, AssociativeKeys: d.AssociativeKeys, MergeKeys: d.MergeKeys,
		FieldRules: d.FieldRules}
}

// functionConfig is the function's config for the merges of an update with m (nil:
// DefaultMergeOptions): 3-way; the roles are the trees' (function.Merge).
func (m *MergeOptions) functionConfig() *config.Config {
	if m == nil {
		m = DefaultMergeOptions()
	}
	c := config.Defaults()
	c.Mode = vocab.ThreeWay
	c.OnConflict, c.RoleAnnotation, c.MergeOnPath, c.ValueMerge = m.OnConflict, m.RoleAnnotation, m.MergeOnPath, m.ValueMerge
	c.Schema, c.AssociativeKeys, c.MergeKeys, c.FieldRules = m.Schema, m.AssociativeKeys, m.MergeKeys, m.FieldRules
	c.ShowSecretValues = m.ShowSecretValues
	return c
}

// ErrTimeout is wrapped by the error of an update stopped at a time limit: a git
// command that ran past Options.GitTimeout, or the cache lock another run held past it.
var ErrTimeout = gitfetch.ErrTimeout

// TimeoutEnv is the environment variable that sets the git time limit when
// Options.GitTimeout is zero (a Go duration, as "5m").
const TimeoutEnv = gitfetch.TimeoutEnv
