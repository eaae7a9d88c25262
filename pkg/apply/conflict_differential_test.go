package apply

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	kjson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"pgregory.net/rapid"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/plan"
)

// The differential test of onConflict: error (Options.NoOverwrite): on generated
// last-applied/config/live triples of the differential test's kinds (Deployments with
// containers, env, ports, volumes and strategy, StatefulSets, DaemonSets, Jobs, Pods,
// Services with ports, ConfigMaps, metadata finalizers and labels, and the custom
// Widget), edited where kubectl's check looks (the same field changed on both sides,
// fields the live object removed, live-only fields the config sets, finalizers dropped
// on both sides, a retainKeys union switched over a live default), Apply refuses the
// object exactly when kubectl's own code does: strategicpatch.CreateThreeWayMergePatch
// (..., overwrite=false) with the patch metadata of the k8s.io/api Go type (not the
// generated table Apply reads) on the three objects without the last-applied
// annotation, which fails with a conflict or another error (or panics); custom
// resources are never refused (kubectl's JSON merge patch path ignores --overwrite).
// Where it refuses, every listed field conflicts on its own by
// strategicpatch.MergingMapsHaveConflicts (the patch and the live changes cut down to
// that field), and the patch without the listed fields has no conflict left. The live
// changes map is changeDiff's, checked in every case against strategicpatch's exported
// two-way diff.

// rapidChecks sets rapid's case count to n unless the command line or RAPID_CHECKS set it.
func rapidChecks(t *testing.T, n int) {
	t.Helper()
	rapidExplicitOnce.Do(func() {
		rapidExplicit = os.Getenv("RAPID_CHECKS") != ""
		flag.Visit(func(f *flag.Flag) { rapidExplicit = rapidExplicit || f.Name == "rapid.checks" })
	})
	if !rapidExplicit {
		if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	rapidExplicitOnce sync.Once
	rapidExplicit     bool
)

// conflictTriple draws one case: the last-applied configuration (nil: no annotation),
// the config and the live object, as values; ops names the edits made.
func conflictTriple(t *rapid.T) (lastApplied, config, live obj, ops []string) {
	k := kinds[rapid.IntRange(0, len(kinds)-1).Draw(t, "kind")]
	g := &gen{r: rand.New(rand.NewSource(rapid.Int64().Draw(t, "seed")))}
	applied := g.object(k[0], k[1], "obj")
	other := g.object(k[0], k[1], "obj")
	config = deepCopy(applied).(obj)
	for n := rapid.IntRange(0, 4).Draw(t, "config edits"); n > 0; n-- {
		if op := g.mutate(config, other, true); op != "" {
			ops = append(ops, "config "+op)
		}
	}
	for _, op := range g.targeted(config) {
		ops = append(ops, "config "+op)
	}
	live = deepCopy(applied).(obj)
	g.serverSide(live)
	for n := rapid.IntRange(0, 3).Draw(t, "live edits"); n > 0; n-- {
		if op := g.mutate(live, other, false); op != "" {
			ops = append(ops, "live "+op)
		}
	}
	// edits where kubectl's check looks
	for _, edit := range []struct {
		name string
		odds int // one in odds cases
		do   func(g *gen, applied, config, live obj) bool
	}{
		{"both change a field", 3, bothChange},
		{"live removes what the config keeps", 3, liveRemoves},
		{"config sets a live-only field", 3, configSetsLiveOnly},
		{"both drop a finalizer", 8, bothDropFinalizer},
		{"live args with duplicates", 32, liveDuplicateArgs},
	} {
		if rapid.IntRange(1, edit.odds).Draw(t, edit.name) == 1 && edit.do(g, applied, config, live) {
			ops = append(ops, edit.name)
		}
	}
	lastApplied = applied
	switch rapid.IntRange(0, 9).Draw(t, "annotation") {
	case 0:
		lastApplied = nil
		ops = append(ops, "no annotation")
	case 1:
		lastApplied = deepCopy(applied).(obj)
		g.mutate(lastApplied, other, false)
		ops = append(ops, "stale annotation")
	}
	if lastApplied != nil {
		la, err := LastAppliedConfiguration(lastApplied)
		if err != nil {
			t.Fatal(err)
		}
		meta := live["metadata"].(obj)
		annots, _ := meta["annotations"].(obj)
		if annots == nil {
			annots = obj{}
			meta["annotations"] = annots
		}
		annots[LastAppliedAnnotation] = la
	}
	return lastApplied, config, live, ops
}

// scalarSites returns the sites of v holding a string, integer or boolean.
func scalarSites(v interface{}) []site {
	var all, out []site
	sites(v, nil, &all)
	for _, s := range all {
		switch s.get().(type) {
		case string, int64, bool:
			out = append(out, s)
		}
	}
	return out
}

// changed returns another value of the same type as v.
func changed(g *gen, v interface{}, tag string) interface{} {
	switch x := v.(type) {
	case string:
		return x + "-" + tag + g.pick("1", "2")
	case int64:
		return x + 1 + int64(g.r.Intn(3))
	case bool:
		return !x
	}
	return v
}

// bothChange sets one scalar the config and the live object share to new values on
// both sides (the same one a third of the time).
func bothChange(g *gen, _, config, live obj) bool {
	var common []site
	for _, s := range scalarSites(config) {
		if lv, ok := lookupPath(live, s.path); ok && reflect.TypeOf(lv) == reflect.TypeOf(s.get()) {
			common = append(common, s)
		}
	}
	if len(common) == 0 {
		return false
	}
	s := common[g.r.Intn(len(common))]
	parent, _ := lookupPath(live, s.path[:len(s.path)-1])
	ls := site{parent: parent, key: s.key, idx: s.idx, path: s.path}
	cv := changed(g, s.get(), "c")
	s.set(cv)
	if g.chance(0.33) {
		ls.set(cv)
	} else {
		ls.set(changed(g, ls.get(), "l"))
	}
	return true
}

// liveRemoves deletes from the live object a field or list element the config has.
func liveRemoves(g *gen, _, config, live obj) bool {
	var all, common []site
	sites(live, nil, &all)
	for _, s := range all {
		if len(s.path) < 2 || (s.path[0] == "metadata" && len(s.path) == 2) {
			continue
		}
		if _, ok := lookupPath(config, s.path); ok {
			common = append(common, s)
		}
	}
	if len(common) == 0 {
		return false
	}
	s := common[g.r.Intn(len(common))]
	if m, ok := s.parent.(obj); ok {
		delete(m, s.key)
		return true
	}
	l := s.parent.(list)
	grand, _ := lookupPath(live, s.path[:len(s.path)-2])
	gm, ok := grand.(obj)
	if !ok {
		return false
	}
	gm[s.path[len(s.path)-2]] = append(append(list{}, l[:s.idx]...), l[s.idx+1:]...) // [] in the YAML too, not null
	return true
}

// configSetsLiveOnly sets in the config a scalar field only the live object has (a
// server default, another actor's value): to the live value a third of the time, else
// to another value.
func configSetsLiveOnly(g *gen, applied, config, live obj) bool {
	var cands []site
	for _, s := range scalarSites(live) {
		if strings.Contains(strings.Join(s.path, "."), LastAppliedAnnotation) {
			continue
		}
		if _, inApplied := lookupPath(applied, s.path); inApplied {
			continue
		}
		if parent, ok := lookupPath(config, s.path[:len(s.path)-1]); ok {
			if _, isMap := parent.(obj); isMap && s.idx < 0 {
				cands = append(cands, s)
			}
		}
	}
	if len(cands) == 0 {
		return false
	}
	s := cands[g.r.Intn(len(cands))]
	parent, _ := lookupPath(config, s.path[:len(s.path)-1])
	v := s.get()
	if !g.chance(0.33) {
		v = changed(g, v, "c")
	}
	parent.(obj)[s.key] = v
	return true
}

// bothDropFinalizer drops a finalizer of the last apply from the config and one from
// the live object (kubectl's check then fails on the two deletion lists).
func bothDropFinalizer(g *gen, applied, config, live obj) bool {
	f, _ := applied["metadata"].(obj)["finalizers"].(list)
	if len(f) < 2 {
		return false
	}
	drop := func(o obj) {
		m := o["metadata"].(obj)
		l, _ := m["finalizers"].(list)
		if len(l) == 0 {
			return
		}
		i := g.r.Intn(len(l))
		m["finalizers"] = append(append(list{}, l[:i]...), l[i+1:]...)
	}
	drop(config)
	drop(live)
	return true
}

// liveDuplicateArgs gives the first live container args with a duplicate and the
// config's three distinct args (kubectl's check indexes past the end there).
func liveDuplicateArgs(g *gen, _, config, live obj) bool {
	first := func(o obj) obj {
		spec, _ := o["spec"].(obj)
		if t, ok := spec["template"].(obj); ok {
			spec, _ = t["spec"].(obj)
		}
		cs, _ := spec["containers"].(list)
		if len(cs) == 0 {
			return nil
		}
		return cs[0].(obj)
	}
	lc, cc := first(live), first(config)
	if lc == nil || cc == nil || lc["name"] != cc["name"] {
		return false
	}
	lc["args"] = list{"--a", "--a", "--b"}
	cc["args"] = list{"--a", "--b", "--c"}
	return true
}

// withoutAnnotation returns a copy of o without the last-applied annotation (the
// annotations map kept).
func withoutAnnotation(o obj) obj {
	c := deepCopy(o).(obj)
	if m, ok := c["metadata"].(obj); ok {
		if a, ok := m["annotations"].(obj); ok {
			delete(a, LastAppliedAnnotation)
		}
	}
	return c
}

// kubectlRefuses is kubectl apply --overwrite=false's verdict on the triple without
// the annotation: the error of CreateThreeWayMergePatch(..., false), a panic in it as
// an error. It also returns the overwrite=true patch and the three JSON maps.
func kubectlRefuses(t *rapid.T, meta strategicpatch.LookupPatchMeta, lastApplied, config, live obj) (refused error, patch, o, c map[string]interface{}) {
	var original []byte
	if lastApplied != nil {
		la, _ := LastAppliedConfiguration(lastApplied) // what the annotation holds
		original = []byte(la)
	}
	_, configLA, err := kubectlApply(live, config)
	if err != nil {
		t.Fatalf("kubectlApply: %v", err)
	}
	modified := []byte(strings.TrimSuffix(configLA, "\n"))
	current, _ := json.Marshal(withoutAnnotation(live))
	func() {
		defer func() {
			if p := recover(); p != nil {
				refused = fmt.Errorf("panic: %v", p)
			}
		}()
		_, refused = strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, false)
	}()
	pj, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
	if err != nil {
		t.Fatalf("overwrite=true patch: %v", err)
	}
	for _, x := range []struct {
		b []byte
		m *map[string]interface{}
	}{{pj, &patch}, {original, &o}, {current, &c}} {
		if len(x.b) > 0 {
			if err := kjson.Unmarshal(x.b, x.m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return refused, patch, o, c
}

// cut returns v cut down to path: only the map fields and keyed elements on the way
// (keyed elements keep their merge key, maps their $patch directive), the value at the
// end whole.
func cut(v interface{}, path fieldpath.Path) interface{} {
	if len(path) == 0 {
		return v
	}
	s := path[0]
	switch x := v.(type) {
	case map[string]interface{}:
		out := map[string]interface{}{}
		if d, ok := x[directiveMarker]; ok {
			out[directiveMarker] = d
		}
		if s.Kind == fieldpath.Field {
			if e, ok := x[s.Name]; ok {
				out[s.Name] = cut(e, path[1:])
			}
		}
		return out
	case []interface{}:
		out := []interface{}{}
		if s.Kind != fieldpath.Key {
			return out
		}
		for _, e := range x {
			m, ok := e.(map[string]interface{})
			if !ok || scalarText(m[s.Keys[0]]) != s.Values[0] {
				continue
			}
			c := cut(m, path[1:]).(map[string]interface{})
			c[s.Keys[0]] = m[s.Keys[0]]
			out = append(out, c)
		}
		return out
	}
	return v
}

// without returns a copy of v with the value at path removed (a map field deleted, a
// keyed element taken out of its list).
func without(v interface{}, path fieldpath.Path) interface{} {
	if len(path) == 0 {
		return v
	}
	s := path[0]
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = e
		}
		if s.Kind == fieldpath.Field {
			if e, ok := x[s.Name]; ok {
				if len(path) == 1 {
					delete(out, s.Name)
				} else {
					out[s.Name] = without(e, path[1:])
				}
			}
		}
		return out
	case []interface{}:
		out := []interface{}{}
		for _, e := range x {
			m, ok := e.(map[string]interface{})
			if ok && s.Kind == fieldpath.Key && scalarText(m[s.Keys[0]]) == s.Values[0] {
				if len(path) == 1 {
					continue
				}
				out = append(out, without(m, path[1:]))
				continue
			}
			out = append(out, e)
		}
		return out
	}
	return v
}

func TestNoOverwriteAgainstStrategicPatch(t *testing.T) {
	rapidChecks(t, 3000)
	st := stats{}
	rapid.Check(t, func(rt *rapid.T) {
		lastApplied, config, live, ops := conflictTriple(rt)
		if _, _, err := kubectlApply(live, config); err != nil {
			st["kubectl error"]++
			return
		}
		g := &gen{r: rand.New(rand.NewSource(1))}
		liveNode, configNode := g.decorate(live, "L", true), g.decorate(config, "C", false)
		_, err := Apply(yaml.NewRNode(liveNode), yaml.NewRNode(configNode), Options{NoOverwrite: true})
		var ce *ConflictError
		if err != nil && !errors.As(err, &ce) {
			rt.Fatalf("Apply: %v", err)
		}
		key := fmt.Sprintf("%v/%v", config["apiVersion"], config["kind"])
		newObj, builtIn := typed[key]
		if !builtIn {
			if ce != nil {
				rt.Fatalf("custom resource refused (%v); kubectl ignores --overwrite for it", ce)
			}
			st["custom resource"]++
			st["cases"]++
			return
		}
		meta, err := strategicpatch.NewPatchMetaFromStruct(newObj())
		if err != nil {
			rt.Fatal(err)
		}
		refused, patch, o, c := kubectlRefuses(rt, meta, lastApplied, config, live)
		if (refused != nil) != (ce != nil) {
			rt.Fatalf("ops %v: kubectl refuses: %v; Apply refuses: %v", ops, refused, ce)
		}
		// changeDiff is strategicpatch's diff: its two-way form equals the exported one
		for _, pair := range [][2]map[string]interface{}{{o, c}, {c, o}} {
			want, err := strategicpatch.CreateTwoWayMergeMapPatchUsingLookupPatchMeta(pair[0], pair[1], meta)
			got, gotErr := (&changeDiff{setElementOrder: true}).maps(pair[0], pair[1], meta, false)
			if (err != nil) != (gotErr != nil) || (err == nil && !reflect.DeepEqual(map[string]interface{}(want), got)) {
				rt.Fatalf("two-way diff:\n got %v (%v)\nwant %v (%v)", got, gotErr, want, err)
			}
		}
		st["cases"]++
		if ce == nil {
			st["accepted"]++
			return
		}
		st["refused"]++
		changes, err := (&changeDiff{}).maps(o, c, meta, false)
		if err != nil {
			st["refused: live changes fail"]++
			return
		}
		for _, f := range ce.Fields {
			if conflict, err := strategicpatch.MergingMapsHaveConflicts(cut(patch, f.Path).(map[string]interface{}), cut(changes, f.Path).(map[string]interface{}), meta); !conflict || err != nil {
				rt.Fatalf("ops %v: %s listed, but alone it is no conflict for strategicpatch (%v)\npatch %v\nchanges %v", ops, f.Path, err, patch, changes)
			}
			switch {
			case f.Op == plan.Added && f.InBase:
				st["field: re-adds what live removed"]++
			case !f.InBase && strings.HasSuffix(f.Path.String(), "strategy.type"):
				st["field: retainKeys union over a live-only value"]++
			case !f.InBase:
				st["field: sets a live-only field"]++
			default:
				st["field: changes or deletes a live change"]++
			}
		}
		if ce.Reason != "" {
			st["refused with a reason"]++
			return
		}
		rest := map[string]interface{}(patch)
		for _, f := range ce.Fields {
			rest = without(rest, f.Path).(map[string]interface{})
		}
		if conflict, err := strategicpatch.MergingMapsHaveConflicts(rest, changes, meta); conflict || err != nil {
			rt.Fatalf("ops %v: fields %v listed, but the patch without them still conflicts (%v)\npatch %v\nchanges %v", ops, ce.Fields, err, patch, changes)
		}
	})
	t.Logf("no-overwrite differential: %v", st)
	if st["cases"] < 2000 {
		t.Errorf("only %d cases compared", st["cases"])
	}
	var low []string
	for _, k := range []string{"refused", "accepted", "custom resource", "refused with a reason", "field: re-adds what live removed",
		"field: retainKeys union over a live-only value", "field: sets a live-only field", "field: changes or deletes a live change"} {
		if st[k] < 20 {
			low = append(low, fmt.Sprintf("%s: %d", k, st[k]))
		}
	}
	sort.Strings(low)
	if len(low) > 0 {
		t.Errorf("too few cases exercise %v", low)
	}
}
