package function

import (
	"errors"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Processor is the krm-merge function. The zero value is ready to use.
type Processor struct {
	// Report, when set, also receives the results of a successful run, one per line as
	// kpt prints them ("[warning] v1/ConfigMap/a data.x: conflict: ..."). Set it where the
	// host shows no results: a standalone run (kyaml writes only the items) or a
	// kustomize transformer (kustomize drops them). A failed run's results reach stderr
	// through kyaml's command either way.
	Report io.Writer
}

var _ framework.ResourceListProcessor = Processor{}

// Process merges rl.Items as rl.FunctionConfig says and replaces rl.Items and rl.Results;
// with `plan: true` it leaves rl.Items as they are and adds the plan to rl.Results. The
// results are scrubbed for a terminal (internal/scrub): a host prints them; a value
// yaml.v3 would write as text it cannot read back is written double-quoted
// (readableResults).
// Errors: a framework.Results holding at least one error result (bad functionConfig, bad
// item, conflicts under onConflict=error, a recovered internal panic); rl.Items is then
// empty.
func (p Processor) Process(rl *framework.ResourceList) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v (please report this with the input)", p)
		}
		if err != nil {
			rl.Items = nil
			rl.Results = append(rl.Results, results.FromError(err)...)
		}
		scrub.Results(rl.Results)
		readableResults(rl.Results)
		if err != nil {
			err = rl.Results
		}
	}()
	cfg, err := LoadConfig(rl.FunctionConfig)
	if err != nil {
		return err
	}
	if cfg.OnConflict == config.MarkConflicts {
		field := "spec." + config.KeyOnConflict
		if rl.FunctionConfig.GetKind() == config.ConfigMapKind {
			field = "data." + config.KeyOnConflict
		}
		return located(config.Errors{{Field: field, Value: string(cfg.OnConflict),
			Valid:   []string{string(config.UpdatedWins), string(config.DestWins), string(config.FailOnConflict)},
			Message: errMark.Error()}}, rl.FunctionConfig)
	}
	out, err := Run(rl.Items, cfg)
	if err != nil {
		return err
	}
	scrub.Results(out.Results) // before Report prints them
	rl.Results = append(rl.Results, out.Results...)
	if !cfg.Plan { // a plan leaves the items as they are
		rl.Items = out.Items
	}
	if p.Report != nil {
		for _, r := range out.Results {
			fmt.Fprintln(p.Report, r.String())
		}
	}
	return nil
}

// errMark says why the function refuses onConflict mark.
var errMark = errors.New("onConflict mark writes conflict markers into a package's files, which only `krm-merge pkg update --on-conflict mark` does " +
	"(docs/pkg-update.md); a function returns resources: use updated, dest or error")

// LoadConfig reads a functionConfig (a ConfigMap or a typed ResourceMerge; nil gives the
// defaults) as the function does: config.Load, with each problem turned into an
// *vocab.ItemError naming the functionConfig resource and the field (e.g.
// "data.onConflict"), joined with errors.Join. A functionConfig is a KRM resource: a
// malformed head (bounds.BadHead: metadata a list, kind a map, ...) is refused first,
// as a *vocab.ItemError naming the field.
func LoadConfig(fc *yaml.RNode) (*config.Config, error) {
	if err := checkConfigHead(fc); err != nil {
		return nil, err
	}
	cfg, err := config.Load(fc)
	if err != nil {
		return nil, located(err, fc)
	}
	return cfg, nil
}

// Run runs items by cfg (which must be valid: config.Load's, or checked with
// (*config.Config).Validate): the heads of the items and inline sources (checkHeads),
// roles (roles.Assign), then what Merge does with the assigned items. It does no I/O and
// never changes items. The outcome's items are writable YAML (writable: aliases resolve
// to an anchor before them, emptied maps and lists are flow style); with cfg.Plan its
// results are the plan (what the run would change) and its items are not for writing.
//
// Errors: onConflict mark (errMark: only `krm-merge pkg update` writes conflict
// markers); *vocab.ItemError for bad items, as checkHeads and roles.Assign document
// them; then Merge's errors.
func Run(items []*yaml.RNode, cfg *config.Config) (*resources.Outcome, error) {
	if cfg.OnConflict == config.MarkConflicts {
		return nil, fmt.Errorf("%s%w", config.ErrorPrefix, errMark)
	}
	if err := checkHeads(items, cfg); err != nil {
		return nil, err
	}
	ro := roleOptions(cfg)
	assigned, err := roles.Assign(items, ro)
	if err != nil {
		return nil, err
	}
	return runAssigned(assigned, cfg, ro, cfg.OnConflict.Winner())
}

// Merge runs items whose roles are known by cfg (valid, as for Run): what Run does after
// roles.Assign. items are one roles.Item per resource, with its Node, Role (vocab.None
// passes through), Position (its place in the input, "items[i]" in errors), File and
// Index (where results and errors say it is: any text, e.g. "app/x.yaml (upstream
// v2)"), RelFile (its path relative to its tree, which identity compares) and RoleDir
// (non-empty when the item was read from a tree of files: a Kptfile there is identified
// by its path, identity.PathIdentified). cfg's mode, role annotation and merge settings
// apply; its role paths and inline sources choose no roles here, but cfg.DestPath is the
// directory an added item goes to (roles.Options.AddDir: its RelFile under DestPath,
// after the last item whose File is that path). The caller keeps items' order: the
// output follows it.
//
// Merge checks each item's head (CheckHeads), checks every item once (checkItems:
// alias expansion, repeated keys, node bounds, null elements), refuses the field-rules
// annotation in apply mode, then runs the mode's resource rules and engines
// (resources.Run) with the options cfg gives (options.go). It does no I/O and never
// changes items; the outcome is Run's (writable items, or the plan), and its Merged and
// Deleted keys point into items.
//
// Errors: onConflict mark (errMark); *vocab.ItemError for bad items, as CheckHeads,
// checkItems and resources.Run document them; in apply mode, an item with the
// field-rules annotation; with onConflict: error and any conflict, a framework.Results
// error holding a heading error result (results.Refused), then the run's results (a
// plan's) or its conflicts.
func Merge(items []roles.Item, cfg *config.Config) (*resources.Outcome, error) {
	return mergeItems(items, cfg, cfg.OnConflict.Winner())
}

// MergeTakingOriginal is Merge with every 3-way conflict of a field, and every
// conflicting part of a value merged inside, given original's value (absent where
// original has none) while everything else merges as Merge merges it: the common
// ancestor of each conflict's two sides, which conflict markers show between them.
// Package pkgupdate runs it for the base side of its markers (onConflict mark);
// resources deleted upstream and changed locally are decided as under onConflict
// updated. It is no functionConfig value. Errors: as Merge's.
func MergeTakingOriginal(items []roles.Item, cfg *config.Config) (*resources.Outcome, error) {
	return mergeItems(items, cfg, vocab.Original)
}

// mergeItems is Merge with winner deciding the merge's conflicts (merge.Options.Winner).
func mergeItems(items []roles.Item, cfg *config.Config, winner vocab.Role) (*resources.Outcome, error) {
	if cfg.OnConflict == config.MarkConflicts {
		return nil, fmt.Errorf("%s%w", config.ErrorPrefix, errMark)
	}
	for i := range items {
		if err := checkHead(items[i].Node, items[i].Position); err != nil {
			return nil, err
		}
	}
	return runAssigned(items, cfg, roleOptions(cfg), winner)
}

// runAssigned is Run after roles.Assign and Merge after the heads: the item checks, the
// resource rules and engines with the options cfg and ro give, the ignored identity
// overrides, onConflict error's refusal, writable items; winner decides the merge's
// conflicts (merge.Options.Winner).
func runAssigned(assigned []roles.Item, cfg *config.Config, ro roles.Options, winner vocab.Role) (*resources.Outcome, error) {
	anyAlias, anyNullElement, err := checkItems(assigned)
	if err != nil {
		return nil, err
	}
	if cfg.Mode == vocab.Apply {
		if err := noFieldRuleAnnotations(assigned); err != nil {
			return nil, err
		}
	}
	out, err := resources.Run(assigned, resourceOptions(cfg, winner, ro, assigned, !anyAlias, !anyNullElement))
	if err != nil {
		return nil, err
	}
	out.Results = append(out.Results, ignoredOverrides(assigned)...)
	if cfg.OnConflict == config.FailOnConflict && len(out.Conflicts) > 0 {
		refused := framework.Results{results.Refused(len(out.Conflicts), cfg.Plan)}
		if cfg.Plan {
			return nil, append(refused, out.Results...)
		}
		for _, c := range out.Conflicts {
			refused = append(refused, c.Result)
		}
		return nil, refused
	}
	if !cfg.Plan {
		parallel.ForEach(len(out.Items), 256, func(i int) { out.Items[i] = writable(out.Items[i]) })
	}
	return out, nil
}

// ignoredOverrides are the warnings on the items whose identity override names another
// group or kind than theirs, which identity.Index ignores (identity.IgnoredClaims), each
// naming the item, its file and the override's field.
func ignoredOverrides(items []roles.Item) framework.Results {
	var out framework.Results
	for _, ig := range identity.IgnoredClaims(items) {
		out = append(out, results.IgnoredOverride(results.At{Location: ig.Item.Location()}, ig.Claim.Source, ig.Claim.Field,
			groupKind(ig.Claim.Group, ig.Claim.Kind), groupKind(vocab.Group(ig.Item.Node.GetApiVersion()), ig.Item.Node.GetKind())))
	}
	return out
}

// groupKind is "group/Kind", or "Kind" for the core group.
func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return group + "/" + kind
}

// located turns functionConfig errors into item errors about the functionConfig, each
// with its field path.
func located(err error, fc *yaml.RNode) error {
	var list config.Errors
	if !errors.As(err, &list) {
		return err
	}
	ref := vocab.ResourceRef(fc)
	out := make([]error, len(list))
	for i, e := range list {
		out[i] = &vocab.ItemError{Location: vocab.Location{Resource: ref}, Field: e.Field, Msg: e.Error()}
	}
	return errors.Join(out...)
}
