package apply

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The differential test: on generated live/config/last-applied triples, Apply's output
// read back as JSON must equal what kubectl's own code computes on the plain JSON
// (kubectlApply below: strategicpatch for built-in kinds, jsonmergepatch for custom
// resources, the annotation built as kubectl builds it), and the live object's comments
// and key order must survive wherever its fields do.

// typed are the Go types the reference uses for the generated built-in kinds.
var typed = map[string]func() interface{}{
	"apps/v1/Deployment":            func() interface{} { return &appsv1.Deployment{} },
	"apps/v1/StatefulSet":           func() interface{} { return &appsv1.StatefulSet{} },
	"apps/v1/DaemonSet":             func() interface{} { return &appsv1.DaemonSet{} },
	"batch/v1/Job":                  func() interface{} { return &batchv1.Job{} },
	"v1/Pod":                        func() interface{} { return &corev1.Pod{} },
	"v1/Service":                    func() interface{} { return &corev1.Service{} },
	"v1/ConfigMap":                  func() interface{} { return &corev1.ConfigMap{} },
	"policy/v1/PodDisruptionBudget": func() interface{} { return &policyv1.PodDisruptionBudget{} },
}

// kubectlApply is kubectl apply's patch step on plain JSON values, written from
// kubectl's patcher.go and util/apply.go: it returns the object the server would store
// and the annotation kubectl writes.
func kubectlApply(live, config map[string]interface{}) (map[string]interface{}, string, error) {
	var original []byte
	if meta, ok := live["metadata"].(map[string]interface{}); ok {
		if a, ok := meta["annotations"].(map[string]interface{}); ok {
			if s, ok := a[LastAppliedAnnotation].(string); ok {
				original = []byte(s)
			}
		}
	}
	withAnnotation := func(la *string) []byte {
		var c map[string]interface{}
		b, _ := json.Marshal(config)
		_ = json.Unmarshal(b, &c)
		meta, _ := c["metadata"].(map[string]interface{})
		if meta == nil {
			meta = map[string]interface{}{}
			c["metadata"] = meta
		}
		// unstructured.GetAnnotations: nulls read as "", other non-strings as no map
		annots := map[string]interface{}{}
		if a, ok := meta["annotations"].(map[string]interface{}); ok {
			for k, v := range a {
				switch v.(type) {
				case string:
					annots[k] = v
				case nil:
					annots[k] = ""
				}
			}
		}
		delete(annots, LastAppliedAnnotation)
		if la != nil {
			annots[LastAppliedAnnotation] = *la
		}
		meta["annotations"] = annots
		out, _ := json.Marshal(c)
		return out
	}
	lastApplied := string(withAnnotation(nil)) + "\n"
	modified := withAnnotation(&lastApplied)
	current, _ := json.Marshal(live)
	var merged []byte
	key := fmt.Sprintf("%v/%v", config["apiVersion"], config["kind"])
	if newObj, ok := typed[key]; ok {
		meta, err := strategicpatch.NewPatchMetaFromStruct(newObj())
		if err != nil {
			return nil, "", err
		}
		patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
		if err != nil {
			return nil, "", err
		}
		if merged, err = strategicpatch.StrategicMergePatch(current, patch, newObj()); err != nil {
			return nil, "", err
		}
	} else {
		patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current,
			mergepatch.RequireKeyUnchanged("apiVersion"), mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name"))
		if err != nil {
			return nil, "", err
		}
		if merged, err = jsonpatch.MergePatch(current, patch); err != nil {
			return nil, "", err
		}
	}
	var out map[string]interface{}
	err := json.Unmarshal(merged, &out)
	return out, lastApplied, err
}

// referenceApply runs kubectlApply on YAML objects read as kubectl reads files.
func referenceApply(t *testing.T, live, config *yaml.RNode) map[string]interface{} {
	t.Helper()
	out, _, err := kubectlApply(jsonOf(t, live), jsonOf(t, config))
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	return out
}

// elementID names a list element for comment and order paths: its first identity key,
// else its value when scalar, else "" (positional: not compared).
func elementID(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return "[=" + n.Value + "]"
	}
	if n.Kind == yaml.MappingNode {
		for _, k := range []string{"name", "containerPort", "port", "mountPath", "key"} {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k && n.Content[i+1].Kind == yaml.ScalarNode {
					return "[" + k + "=" + n.Content[i+1].Value + "]"
				}
			}
		}
	}
	return ""
}

// shape collects, per path, the comments of key and scalar nodes and the key order of
// maps.
type shape struct {
	comments map[string]string
	orders   map[string][]string
	kinds    map[string]yaml.Kind
}

func shapeOf(n *yaml.Node) *shape {
	s := &shape{comments: map[string]string{}, orders: map[string][]string{}, kinds: map[string]yaml.Kind{}}
	s.walk(n, "")
	return s
}

func (s *shape) walk(n *yaml.Node, path string) {
	s.kinds[path] = n.Kind
	switch n.Kind {
	case yaml.MappingNode:
		var keys []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			keys = append(keys, k.Value)
			p := path + "." + k.Value
			if k.HeadComment != "" {
				s.comments[p+"#key"] = k.HeadComment
			}
			s.walk(v, p)
		}
		s.orders[path] = keys
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if id := elementID(e); id != "" {
				s.walk(e, path+id)
			}
		}
	case yaml.ScalarNode:
		if n.LineComment != "" {
			s.comments[path+"#value"] = n.LineComment
		}
	}
}

// stats counts what the generated cases exercised.
type stats map[string]int

func TestDifferentialAgainstStrategicPatch(t *testing.T) {
	const cases = 1200
	g := &gen{r: rand.New(rand.NewSource(20250101))}
	st := stats{}
	ignore := func(k string) bool {
		return vocab.IsHostAnnotation(k, vocab.DefaultRoleAnnotation)
	}
	failures := 0
	for i := 0; i < cases && failures < 5; i++ {
		av, kind := kinds[i%len(kinds)][0], kinds[i%len(kinds)][1]
		name := fmt.Sprintf("obj%d", i)
		applied := g.object(av, kind, name)
		other := g.object(av, kind, name)
		config := deepCopy(applied).(obj)
		for n := 1 + g.r.Intn(5); n > 0; n-- {
			if op := g.mutate(config, other, true); op != "" {
				st["config "+op]++
			}
		}
		for _, op := range g.targeted(config) {
			st["config "+op]++
		}
		live := deepCopy(applied).(obj)
		g.serverSide(live)
		for g.chance(0.3) {
			if op := g.mutate(live, other, false); op != "" {
				st["live "+op]++
			}
		}
		// the last-applied annotation: the applied config's (usual), none, or a stale one
		var lastApplied interface{} = applied
		switch x := g.r.Intn(10); {
		case x == 0:
			lastApplied = nil
			st["no annotation"]++
		case x == 1:
			stale := deepCopy(applied).(obj)
			g.mutate(stale, other, false)
			lastApplied = stale
			st["stale annotation"]++
		}
		if lastApplied != nil {
			la, err := LastAppliedConfiguration(lastApplied.(obj))
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
		want, wantLA, err := kubectlApply(live, config)
		if err != nil {
			st["kubectl error"]++
			continue
		}
		liveNode := g.decorate(live, "L", true)
		configNode := g.decorate(config, "C", false)
		host := g.chance(0.3)
		if host { // kpt's annotations take no part in the apply
			for _, n := range []*yaml.Node{liveNode, configNode} {
				rn := yaml.NewRNode(n)
				_ = rn.PipeE(yaml.SetAnnotation("config.kubernetes.io/path", "x.yaml"))
				_ = rn.PipeE(yaml.SetAnnotation("internal.config.kubernetes.io/index", "0"))
			}
			st["host annotations"]++
		}
		liveCopy := yaml.CopyYNode(liveNode)
		res, err := Apply(yaml.NewRNode(liveNode), yaml.NewRNode(configNode), Options{Ignore: ignore})
		if err != nil {
			t.Errorf("case %d (%s): %v", i, kind, err)
			failures++
			continue
		}
		if !reflect.DeepEqual(liveNode, liveCopy) {
			t.Errorf("case %d: Apply changed its live input", i)
		}
		got := jsonOf(t, res.Object)
		if host {
			a := got["metadata"].(obj)["annotations"].(obj)
			if a["config.kubernetes.io/path"] != "x.yaml" || a["internal.config.kubernetes.io/index"] != "0" {
				t.Errorf("case %d: host annotations lost: %v", i, a)
			}
			delete(a, "config.kubernetes.io/path")
			delete(a, "internal.config.kubernetes.io/index")
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("case %d (%s): output differs from kubectl's at %s\nlive:\n%s\nconfig:\n%s\noutput:\n%s", i, kind, firstDifference("", got, want),
				yaml.NewRNode(liveCopy).MustString(), yaml.NewRNode(configNode).MustString(), res.Object.MustString())
			failures++
			continue
		}
		if res.LastApplied != wantLA {
			t.Errorf("case %d: annotation %q, kubectl writes %q", i, res.LastApplied, wantLA)
		}
		// comments and order of the live object survive where its fields do
		before, after := shapeOf(liveCopy), shapeOf(res.Object.YNode())
		for p, c := range before.comments {
			field := strings.TrimSuffix(strings.TrimSuffix(p, "#key"), "#value")
			k, survives := after.kinds[field]
			if !survives || (strings.HasSuffix(p, "#value") && k != yaml.ScalarNode) {
				continue
			}
			if after.comments[p] != c {
				t.Errorf("case %d: comment %q at %s became %q", i, c, p, after.comments[p])
				failures++
			}
			st["comments kept"]++
		}
		for p, keys := range before.orders {
			outKeys, ok := after.orders[p]
			if !ok {
				continue
			}
			if a, b := common(keys, outKeys), common(outKeys, keys); !reflect.DeepEqual(a, b) {
				t.Errorf("case %d: key order at %q was %v, became %v", i, p, a, b)
				failures++
			}
		}
		for _, c := range res.Plan {
			st["plan "+string(c.Op)]++
			if c.OverwritesBase() {
				st["plan overwrites"]++
			}
			if strings.Contains(c.Path.String(), "strategy.rollingUpdate") && c.Op == plan.Deleted && !c.InBase {
				st["retainKeys clears a server default"]++
			}
			if strings.Contains(c.Path.String(), "volumes[name=") && c.Op == plan.Deleted && !strings.HasSuffix(c.Path.String(), "]") {
				st["retainKeys clears a volume source"]++
			}
		}
		st[string(res.PatchType.Strategy)]++
		st["cases"]++
	}
	t.Logf("differential: %v", st)
	if st["cases"] < 1000 {
		t.Errorf("only %d cases compared, want at least 1000 (%d kubectl errors)", st["cases"], st["kubectl error"])
	}
	// the generator must keep exercising what the test is for
	for _, k := range []string{"plan change", "plan add", "plan delete", "plan reorder", "plan overwrites", "no annotation", "stale annotation",
		"host annotations", "config null", "config reorder", "config delete-element", "config add-element", "config add-field",
		"retainKeys clears a server default", "retainKeys clears a volume source", "strategic merge patch", "JSON merge patch", "comments kept"} {
		if st[k] < 20 {
			t.Errorf("only %d cases with %q", st[k], k)
		}
	}
}

// common returns the elements of a that b has, in a's order.
func common(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}

// The generated YAML must be what the reference reads: the decorated nodes print and
// parse back to the same values (guards the test's own plumbing).
func TestDifferentialPlumbing(t *testing.T) {
	g := &gen{r: rand.New(rand.NewSource(1))}
	for i, k := range kinds {
		o := g.object(k[0], k[1], fmt.Sprint("x", i))
		n := yaml.NewRNode(g.decorate(o, "L", true))
		b, err := sigsyaml.YAMLToJSON([]byte(n.MustString()))
		if err != nil {
			t.Fatal(err)
		}
		var got, want interface{}
		_ = json.Unmarshal(b, &got)
		wb, _ := json.Marshal(o)
		_ = json.Unmarshal(wb, &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decorated YAML reads %s, want %s", k[1], b, wb)
		}
	}
}

// firstDifference names the first path where two JSON values differ, with both values.
func firstDifference(path string, a, b interface{}) string {
	am, aok := a.(map[string]interface{})
	bm, bok := b.(map[string]interface{})
	if aok && bok {
		for _, k := range sortedKeys(am) {
			if _, ok := bm[k]; !ok {
				return fmt.Sprintf("%s.%s: got %v, want absent", path, k, am[k])
			}
			if d := firstDifference(path+"."+k, am[k], bm[k]); d != "" {
				return d
			}
		}
		for _, k := range sortedKeys(bm) {
			if _, ok := am[k]; !ok {
				return fmt.Sprintf("%s.%s: absent, want %v", path, k, bm[k])
			}
		}
		return ""
	}
	al, aok := a.([]interface{})
	bl, bok := b.([]interface{})
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		ab, _ := json.Marshal(a)
		bb, _ := json.Marshal(b)
		return fmt.Sprintf("%s: got %s, want %s", path, ab, bb)
	}
	return ""
}
