package pkgcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// The flags that set a functionConfig key (--on-conflict, --show-secret-values) take
// their valid values and defaults from config's table of keys (config.Keys) and pkg
// update's defaults from config.PkgUpdateDefaults, so that neither is listed here.

// keyDoc returns the entry of the functionConfig key name in config.Keys. It panics on
// a name the table lacks (a programming error the package's tests catch).
func keyDoc(name string) config.KeyDoc {
	for _, k := range config.Keys() {
		if k.Name == name {
			return k
		}
	}
	panic("pkgcmd: no functionConfig key " + name)
}

// conflictValues are --on-conflict's valid values: onConflict's (config.Keys), pkg
// update's default (config.PkgUpdateDefaults) first, then the others in the table's
// order.
func conflictValues() []string {
	def := string(config.PkgUpdateDefaults().OnConflict)
	out := []string{def}
	for _, v := range keyDoc(config.KeyOnConflict).Valid {
		if v != def {
			out = append(out, v)
		}
	}
	return out
}

// conflictMeaning says what each onConflict value does in pkg update, for
// --on-conflict's help (docs/pkg-update.md, the --on-conflict flag); a value without one is
// listed by its name alone.
var conflictMeaning = map[config.ConflictPolicy]string{
	config.MarkConflicts:  "markers in the files; the update stops, exit 2, until --continue or --abort",
	config.UpdatedWins:    "upstream wins, as kpt pkg update",
	config.DestWins:       "your copy wins",
	config.FailOnConflict: "exit 1, nothing written",
}

// onConflictUsage is --on-conflict's help: each value with what it does, and the
// default (the --config file's onConflict, else pkg update's).
func onConflictUsage() string {
	values := conflictValues()
	described := make([]string, len(values))
	for i, v := range values {
		described[i] = v
		if m := conflictMeaning[config.ConflictPolicy(v)]; m != "" {
			described[i] += " (" + m + ")"
		}
	}
	return fmt.Sprintf("what a conflict does: %s (default the --config file's %s if it sets one, else %s)",
		orList(described), config.KeyOnConflict, values[0])
}

// showSecretValuesUsage is --show-secret-values's help, with showSecretValues's
// default.
func showSecretValuesUsage() string {
	return fmt.Sprintf("print a Secret's data and stringData values in conflict and plan lines (the config's %s); "+
		"without it they are redacted (default %s: redacted)", config.KeyShowSecretValues, keyDoc(config.KeyShowSecretValues).Default)
}

// conflictPolicy is the update's conflict policy: flag (--on-conflict) when given, else
// fromConfig when the --config file sets onConflict (configSets), else pkg update's
// default (config.PkgUpdateDefaults). Errors: a flag value that is not one of
// conflictValues.
func conflictPolicy(flag string, fromConfig config.ConflictPolicy, configSets bool) (config.ConflictPolicy, error) {
	switch {
	case flag == "" && configSets:
		return fromConfig, nil
	case flag == "":
		return config.PkgUpdateDefaults().OnConflict, nil
	case slices.Contains(conflictValues(), flag):
		return config.ConflictPolicy(flag), nil
	default:
		return "", fmt.Errorf("--on-conflict %q: want %s", flag, orList(conflictValues()))
	}
}

// orList joins "a", "b", "c" as "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// concludeFlags are the flags --continue and --abort take (pkgupdate.Continue and
// Abort read only the directory, the file size limit, the lock's time limit and the
// log; over several packages, the fleet's flags choose them); every other flag given
// with them is refused (givenFlags, runConclude, runFleetUpdate).
var concludeFlags = []string{"continue", "abort", "output", "max-file-size", "lock-timeout", "all", "jobs", "shard"}

// givenFlags returns the flags of fs given on the command line, as "--name", in the
// flag set's order (sorted by name).
func givenFlags(fs *pflag.FlagSet) []string {
	var given []string
	fs.Visit(func(fl *pflag.Flag) { given = append(given, "--"+fl.Name) })
	return given
}

// refusedWithConclude returns the flags of given (as givenFlags returns them) that
// --continue and --abort refuse: every one not in concludeFlags.
func refusedWithConclude(given []string) []string {
	var bad []string
	for _, g := range given {
		if !slices.Contains(concludeFlags, strings.TrimPrefix(g, "--")) {
			bad = append(bad, g)
		}
	}
	return bad
}
