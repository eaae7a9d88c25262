package pkgcmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// Every flag but concludeFlags is refused with --continue and with --abort, each named:
// a flag added to the command is refused there unless it is added to concludeFlags.
func TestConcludeRefusesUpdateFlags(t *testing.T) {
	dir := t.TempDir()
	cmd := updateCommand()
	n := 0
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if slices.Contains(concludeFlags, fl.Name) {
			return
		}
		n++
		value := "x"
		switch fl.Value.Type() {
		case "bool":
			value = "true"
		case "duration":
			value = "1s"
		}
		for _, conclude := range []string{"--continue", "--abort"} {
			_, _, err := run(t, "update", dir, conclude, "--"+fl.Name+"="+value)
			want := conclude + " takes no --" + fl.Name + ":"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s --%s=%s: %v, want %q", conclude, fl.Name, value, err, want)
			}
		}
	})
	if n == 0 {
		t.Errorf("no update-only flag refused; want every flag but %v", concludeFlags)
	}
	for _, name := range concludeFlags {
		if cmd.Flags().Lookup(name) == nil {
			t.Errorf("concludeFlags names --%s, which the command lacks", name)
		}
	}
	_, _, err := run(t, "update", dir, "--continue", "--to", "v2", "--git-timeout", "1s", "--plan")
	if want := "--continue takes no --git-timeout, --plan, --to:"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("three update flags: %v, want %q", err, want)
	}
}

// --on-conflict's values are onConflict's (config.Keys), pkg update's default first,
// each with what it does in its help.
func TestOnConflictValuesFromConfig(t *testing.T) {
	values := conflictValues()
	var valid []string
	for _, k := range config.Keys() {
		if k.Name == config.KeyOnConflict {
			valid = k.Valid
		}
	}
	if len(values) != len(valid) || values[0] != string(config.PkgUpdateDefaults().OnConflict) {
		t.Errorf("conflictValues() = %v; onConflict's values %v, pkg update's default first", values, valid)
	}
	usage := updateCommand().Flags().Lookup("on-conflict").Usage
	for _, v := range valid {
		if !slices.Contains(values, v) {
			t.Errorf("--on-conflict lacks %q", v)
		}
		if conflictMeaning[config.ConflictPolicy(v)] == "" || !strings.Contains(usage, v+" (") {
			t.Errorf("--on-conflict's help does not say what %q does: %s", v, usage)
		}
		if got, err := conflictPolicy(v, config.UpdatedWins, false); err != nil || string(got) != v {
			t.Errorf("conflictPolicy(%q) = %q, %v", v, got, err)
		}
	}
	if len(conflictMeaning) != len(valid) {
		t.Errorf("conflictMeaning has %d values, onConflict %d", len(conflictMeaning), len(valid))
	}
}
