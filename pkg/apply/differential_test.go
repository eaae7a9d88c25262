package apply

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
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

	"github.com/krm-merge/krm-merge/internal/host"
	"github.com/krm-merge/krm-merge/pkg/plan"
	sigsyaml "sigs.k8s.io/yaml"
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

// gen makes random Kubernetes objects from a fixed vocabulary, so that every value has
// the type its field expects and every keyed list has unique keys.
type gen struct {
	r *rand.Rand
	n int
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }
func (g *gen) pick(xs ...string) string {
	return xs[g.r.Intn(len(xs))]
}
func (g *gen) subset(xs ...string) []interface{} {
	var out []interface{}
	for _, i := range g.r.Perm(len(xs)) {
		if g.chance(0.5) {
			out = append(out, xs[i])
		}
	}
	if len(out) == 0 {
		out = append(out, xs[g.r.Intn(len(xs))])
	}
	return out
}

type obj = map[string]interface{}
type list = []interface{}

var kinds = [][2]string{
	{"apps/v1", "Deployment"}, {"apps/v1", "StatefulSet"}, {"apps/v1", "DaemonSet"}, {"batch/v1", "Job"},
	{"v1", "Pod"}, {"v1", "Service"}, {"v1", "ConfigMap"}, {"example.com/v1", "Widget"},
}

func (g *gen) object(apiVersion, kind, name string) obj {
	meta := obj{"name": name, "namespace": "demo"}
	if g.chance(0.6) {
		labels := obj{}
		for _, k := range g.subset("app", "tier", "team") {
			labels[k.(string)] = g.pick("web", "api", "a", "b")
		}
		meta["labels"] = labels
	}
	if g.chance(0.3) {
		meta["annotations"] = obj{"example.com/owner": g.pick("alice", "bob"), "example.com/note": g.pick("x<y", "a&b", "plain")}
	}
	if g.chance(0.3) {
		meta["finalizers"] = g.subset("a.io/x", "b.io/y", "c.io/z")
	}
	o := obj{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	template := func(restart string) obj {
		spec := g.podSpec()
		if restart != "" {
			spec["restartPolicy"] = restart
		}
		return obj{"metadata": obj{"labels": obj{"app": name}}, "spec": spec}
	}
	selector := obj{"matchLabels": obj{"app": name}}
	switch kind {
	case "Deployment":
		spec := obj{"selector": selector, "template": template("")}
		if g.chance(0.8) {
			spec["replicas"] = int64(1 + g.r.Intn(5))
		}
		if g.chance(0.5) {
			if g.chance(0.5) {
				spec["strategy"] = obj{"type": "Recreate"}
			} else {
				spec["strategy"] = obj{"type": "RollingUpdate", "rollingUpdate": obj{"maxSurge": int64(1), "maxUnavailable": int64(0)}}
			}
		}
		if g.chance(0.3) {
			spec["minReadySeconds"] = int64(g.r.Intn(30))
		}
		o["spec"] = spec
	case "StatefulSet":
		spec := obj{"selector": selector, "serviceName": name, "template": template(""), "replicas": int64(1 + g.r.Intn(3))}
		if g.chance(0.4) {
			spec["updateStrategy"] = obj{"type": g.pick("OnDelete", "RollingUpdate")}
		}
		o["spec"] = spec
	case "DaemonSet":
		o["spec"] = obj{"selector": selector, "template": template("")}
	case "Job":
		o["spec"] = obj{"template": template("Never"), "backoffLimit": int64(g.r.Intn(6))}
	case "Pod":
		o["spec"] = g.podSpec()
	case "Service":
		var ports list
		for _, i := range g.r.Perm(4)[:1+g.r.Intn(3)] {
			p := obj{"name": []string{"http", "https", "metrics", "grpc"}[i], "port": int64([]int{80, 443, 9090, 50051}[i])}
			if g.chance(0.5) {
				p["targetPort"] = int64(8000 + i)
			}
			ports = append(ports, p)
		}
		spec := obj{"selector": obj{"app": name}, "ports": ports}
		if g.chance(0.3) {
			spec["type"] = g.pick("ClusterIP", "NodePort")
		}
		o["spec"] = spec
	case "ConfigMap":
		data := obj{}
		for _, k := range g.subset("k1", "k2", "k3", "k4", "k5", "k6") {
			data[k.(string)] = g.pick("1", "true", "on", "a: b", "multi\nline\n", "plain", "")
		}
		o["data"] = data
	default: // the custom resource
		var items list
		for _, i := range g.r.Perm(5)[:1+g.r.Intn(3)] {
			items = append(items, obj{"name": fmt.Sprintf("i%d", i), "size": int64(g.r.Intn(10))})
		}
		spec := obj{"items": items, "settings": obj{"mode": g.pick("fast", "safe")}}
		if g.chance(0.5) {
			spec["tags"] = g.subset("red", "green", "blue")
		}
		if g.chance(0.5) {
			spec["replicas"] = int64(g.r.Intn(4))
		}
		o["spec"] = spec
	}
	return o
}

func (g *gen) podSpec() obj {
	var containers list
	pool := []string{"app", "sidecar", "proxy", "logger"}
	for _, i := range g.r.Perm(len(pool))[:1+g.r.Intn(3)] {
		containers = append(containers, g.container(pool[i]))
	}
	spec := obj{"containers": containers}
	if g.chance(0.2) {
		spec["initContainers"] = list{obj{"name": "init", "image": "busybox:" + g.pick("1.36", "1.37")}}
	}
	if g.chance(0.5) {
		var vols list
		for _, n := range g.subset("data", "config", "cache") {
			vols = append(vols, g.volume(n.(string)))
		}
		spec["volumes"] = vols
	}
	if g.chance(0.3) {
		spec["nodeSelector"] = obj{"disk": g.pick("ssd", "hdd")}
	}
	if g.chance(0.2) {
		var tol list
		for _, k := range g.subset("gpu", "spot") {
			tol = append(tol, obj{"key": k, "operator": "Exists"})
		}
		spec["tolerations"] = tol
	}
	if g.chance(0.3) {
		spec["serviceAccountName"] = g.pick("default", "runner")
	}
	return spec
}

func (g *gen) volume(name string) obj {
	switch g.r.Intn(3) {
	case 0:
		return obj{"name": name, "emptyDir": obj{}}
	case 1:
		return obj{"name": name, "configMap": obj{"name": g.pick("settings", "other")}}
	}
	return obj{"name": name, "secret": obj{"secretName": g.pick("creds", "tls")}}
}

func (g *gen) container(name string) obj {
	c := obj{"name": name, "image": name + ":" + g.pick("1", "2", "3")}
	if g.chance(0.4) {
		c["args"] = g.subset("--a", "--b", "--c", "--d")
	}
	if g.chance(0.5) {
		var env list
		for _, n := range g.subset("A", "B", "C", "D") {
			env = append(env, obj{"name": n, "value": g.pick("1", "x", "yes")})
		}
		c["env"] = env
	}
	if g.chance(0.5) {
		var ports list
		for _, p := range g.r.Perm(3)[:1+g.r.Intn(2)] {
			ports = append(ports, obj{"containerPort": int64(8080 + p), "name": fmt.Sprintf("p%d", p)})
		}
		c["ports"] = ports
	}
	if g.chance(0.3) {
		c["volumeMounts"] = list{obj{"name": "data", "mountPath": "/data"}}
	}
	if g.chance(0.3) {
		c["resources"] = obj{"limits": obj{"cpu": g.pick("100m", "1")}, "requests": obj{"memory": g.pick("64Mi", "1Gi")}}
	}
	return c
}

func deepCopy(v interface{}) interface{} {
	switch x := v.(type) {
	case obj:
		m := make(obj, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case list:
		l := make(list, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// site is a place in a value: a map key or a list index, with its path.
type site struct {
	parent interface{}
	key    string
	idx    int
	path   []string
}

// identity keys are never mutated: they name objects and keyed list elements.
var identityKeys = map[string]bool{"apiVersion": true, "kind": true, "name": true, "namespace": true,
	"containerPort": true, "port": true, "mountPath": true, "key": true}

func sites(v interface{}, path []string, out *[]site) {
	switch x := v.(type) {
	case obj:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := append(append([]string(nil), path...), k)
			if !identityKeys[k] {
				*out = append(*out, site{parent: x, key: k, idx: -1, path: p})
			}
			sites(x[k], p, out)
		}
	case list:
		for i, e := range x {
			p := append(append([]string(nil), path...), fmt.Sprint(i))
			*out = append(*out, site{parent: x, idx: i, path: p})
			sites(e, p, out)
		}
	}
}

func (s site) get() interface{} {
	if m, ok := s.parent.(obj); ok {
		return m[s.key]
	}
	return s.parent.(list)[s.idx]
}

func (s site) set(v interface{}) {
	if m, ok := s.parent.(obj); ok {
		m[s.key] = v
		return
	}
	s.parent.(list)[s.idx] = v
}

// lookupPath follows a site path (map keys, list indexes) in another value.
func lookupPath(v interface{}, path []string) (interface{}, bool) {
	for _, p := range path {
		switch x := v.(type) {
		case obj:
			var ok bool
			if v, ok = x[p]; !ok {
				return nil, false
			}
		case list:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// mutate changes o in place by one random type-preserving edit: change a scalar,
// delete a field or element, add a keyed element or set member, reorder a list, graft
// a field from another object of the same kind, or (config only) set a field to null.
// It returns the kind of edit made ("" if none applied).
func (g *gen) mutate(o obj, other obj, allowNull bool) string {
	var all []site
	sites(o, nil, &all)
	if len(all) == 0 {
		return ""
	}
	s := all[g.r.Intn(len(all))]
	g.n++
	switch op := g.r.Intn(7); op {
	case 0: // change a scalar
		switch v := s.get().(type) {
		case string:
			s.set(v + "-" + g.pick("x", "y", "z"))
		case int64:
			s.set(v + 1 + int64(g.r.Intn(3)))
		case bool:
			s.set(!v)
		default:
			return ""
		}
		return "change"
	case 1: // delete a field or element
		if len(s.path) <= 1 {
			return ""
		}
		if m, ok := s.parent.(obj); ok {
			if s.path[0] == "metadata" && len(s.path) == 2 {
				return ""
			}
			delete(m, s.key)
			return "delete"
		}
		l := s.parent.(list)
		if len(l) < 2 {
			return ""
		}
		parent, _ := lookupPath(o, s.path[:len(s.path)-2])
		if pm, ok := parent.(obj); ok {
			pm[s.path[len(s.path)-2]] = append(append(list(nil), l[:s.idx]...), l[s.idx+1:]...)
			return "delete-element"
		}
		return ""
	case 2: // add an element: a copy of a keyed element under a new key, or a new set member
		l, ok := s.get().(list)
		if !ok || len(l) == 0 {
			return ""
		}
		switch e := l[g.r.Intn(len(l))].(type) {
		case obj:
			c := deepCopy(e).(obj)
			for _, k := range []string{"name", "containerPort", "port", "mountPath", "key"} {
				switch kv := c[k].(type) {
				case string:
					c[k] = fmt.Sprintf("%s-n%d", kv, g.n)
				case int64:
					c[k] = kv + 1000 + int64(g.n)
				default:
					continue
				}
				s.set(append(l, c))
				return "add-element"
			}
			return ""
		case string:
			s.set(append(l, fmt.Sprintf("%s-n%d", e, g.n)))
			return "add-element"
		}
		return ""
	case 3: // reorder
		l, ok := s.get().(list)
		if !ok || len(l) < 2 {
			return ""
		}
		i, j := g.r.Intn(len(l)), g.r.Intn(len(l))
		if i == j {
			j = (i + 1) % len(l)
		}
		c := append(list(nil), l...)
		c[i], c[j] = c[j], c[i]
		s.set(c)
		return "reorder"
	case 4, 5: // graft a field the other object has here
		m, ok := s.get().(obj)
		if !ok {
			return ""
		}
		ov, ok := lookupPath(other, s.path)
		om, isMap := ov.(obj)
		if !ok || !isMap {
			return ""
		}
		for _, k := range sortedKeys(om) {
			if _, has := m[k]; !has {
				m[k] = deepCopy(om[k])
				return "add-field"
			}
		}
		return ""
	default: // null in the config: kubectl deletes the field
		if !allowNull || len(s.path) < 3 {
			return ""
		}
		if m, ok := s.parent.(obj); ok {
			m[s.key] = nil
			return "null"
		}
		return ""
	}
}

// targeted makes the edits the generic mutations rarely hit: a Deployment switching its
// strategy type (retainKeys), a volume switching its source (retainKeys), containers
// reordered (a keyed list's $setElementOrder).
func (g *gen) targeted(o obj) []string {
	var ops []string
	spec, _ := o["spec"].(obj)
	if spec == nil {
		return nil
	}
	if o["kind"] == "Deployment" && g.chance(0.4) {
		if st, ok := spec["strategy"].(obj); ok && st["type"] == "Recreate" {
			spec["strategy"] = obj{"type": "RollingUpdate"}
		} else {
			spec["strategy"] = obj{"type": "Recreate"}
		}
		ops = append(ops, "strategy switch")
	}
	pod := spec
	if t, ok := spec["template"].(obj); ok {
		pod, _ = t["spec"].(obj)
	}
	if pod == nil {
		return ops
	}
	if vols, ok := pod["volumes"].(list); ok && g.chance(0.5) {
		v := vols[g.r.Intn(len(vols))].(obj)
		name := v["name"]
		for k := range v {
			delete(v, k)
		}
		for k, val := range g.volume(name.(string)) {
			v[k] = val
		}
		ops = append(ops, "volume source switch")
	}
	if cs, ok := pod["containers"].(list); ok && len(cs) > 1 && g.chance(0.2) {
		g.r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		ops = append(ops, "reorder containers")
	}
	return ops
}

func sortedKeys(m obj) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// serverSide turns an applied config into a live object: server fields and defaults,
// status, and changes by other actors (an HPA, an injected sidecar, labels, finalizers,
// kubectl set image).
func (g *gen) serverSide(o obj) {
	meta := o["metadata"].(obj)
	meta["uid"] = fmt.Sprintf("uid-%d", g.r.Intn(1000))
	meta["resourceVersion"] = fmt.Sprint(g.r.Intn(100000))
	meta["creationTimestamp"] = "2025-01-02T03:04:05Z"
	kind := o["kind"].(string)
	spec, _ := o["spec"].(obj)
	var pod obj
	switch kind {
	case "Deployment", "StatefulSet", "DaemonSet", "Job":
		pod = spec["template"].(obj)["spec"].(obj)
		meta["generation"] = int64(1 + g.r.Intn(4))
		o["status"] = obj{"observedGeneration": int64(1), "replicas": int64(g.r.Intn(5))}
	case "Pod":
		pod = spec
		o["status"] = obj{"phase": "Running", "podIP": "10.1.2.3"}
	case "Service":
		spec["clusterIP"] = "10.96.0.10"
		spec["sessionAffinity"] = "None"
		for _, p := range spec["ports"].(list) {
			pm := p.(obj)
			pm["protocol"] = "TCP"
			if _, ok := pm["targetPort"]; !ok {
				pm["targetPort"] = pm["port"]
			}
		}
	case "Widget":
		o["status"] = obj{"ready": true}
	}
	if kind == "Deployment" {
		if _, ok := spec["strategy"]; !ok {
			spec["strategy"] = obj{"type": "RollingUpdate", "rollingUpdate": obj{"maxSurge": "25%", "maxUnavailable": "25%"}}
		} else if st := spec["strategy"].(obj); st["type"] == "RollingUpdate" && st["rollingUpdate"] == nil {
			st["rollingUpdate"] = obj{"maxSurge": "25%", "maxUnavailable": "25%"}
		}
		spec["revisionHistoryLimit"] = int64(10)
		spec["progressDeadlineSeconds"] = int64(600)
		if g.chance(0.4) {
			spec["replicas"] = int64(2 + g.r.Intn(8)) // scaled by an HPA
		}
	}
	if pod != nil {
		if _, ok := pod["restartPolicy"]; !ok {
			pod["restartPolicy"] = "Always"
		}
		pod["dnsPolicy"] = "ClusterFirst"
		pod["schedulerName"] = "default-scheduler"
		for _, c := range pod["containers"].(list) {
			cm := c.(obj)
			cm["terminationMessagePath"] = "/dev/termination-log"
			if _, ok := cm["imagePullPolicy"]; !ok {
				cm["imagePullPolicy"] = "IfNotPresent"
			}
			if ports, ok := cm["ports"].(list); ok {
				for _, p := range ports {
					p.(obj)["protocol"] = "TCP"
				}
			}
		}
		if g.chance(0.3) { // an injected sidecar
			pod["containers"] = append(pod["containers"].(list), obj{"name": "istio-proxy", "image": "proxyv2:1.20"})
		}
		if g.chance(0.2) { // kubectl set image
			c := pod["containers"].(list)[0].(obj)
			c["image"] = c["image"].(string) + "-hotfix"
		}
	}
	if g.chance(0.3) {
		labels, _ := meta["labels"].(obj)
		if labels == nil {
			labels = obj{}
			meta["labels"] = labels
		}
		labels["injected"] = "true"
	}
	if g.chance(0.2) {
		f, _ := meta["finalizers"].(list)
		meta["finalizers"] = append(f, "kubernetes.io/protect")
	}
	if g.chance(0.3) {
		annots, _ := meta["annotations"].(obj)
		if annots == nil {
			annots = obj{}
			meta["annotations"] = annots
		}
		annots["deployment.kubernetes.io/revision"] = fmt.Sprint(1 + g.r.Intn(5))
	}
}

// decorate builds YAML for a value with keys in random order, a head comment on every
// key and (live only) a line comment on every scalar value, all unique.
func (g *gen) decorate(v interface{}, tag string, valueComments bool) *yaml.Node {
	g.n++
	id := g.n
	switch x := v.(type) {
	case obj:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
		keys := sortedKeys(x)
		g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		for _, k := range keys {
			g.n++
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: k, HeadComment: fmt.Sprintf("# %s%d", tag, g.n)}
			n.Content = append(n.Content, key, g.decorate(x[k], tag, valueComments))
		}
		return n
	case list:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
		for _, e := range x {
			n.Content = append(n.Content, g.decorate(e, tag, valueComments))
		}
		return n
	}
	var n *yaml.Node
	switch x := v.(type) {
	case string:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: x}
		// quote what kubectl's YAML 1.1 reader would take for another type, and some
		// other strings, whose style the output must keep
		if b, err := sigsyaml.YAMLToJSON([]byte(x)); !strings.Contains(x, "\n") && (err != nil || len(b) == 0 || b[0] != '"') {
			n.Style = yaml.DoubleQuotedStyle
		} else if !strings.Contains(x, "\n") && g.chance(0.2) {
			n.Style = yaml.SingleQuotedStyle
		}
	case int64:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: fmt.Sprint(x)}
	case bool:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagBool, Value: fmt.Sprint(x)}
	case nil:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagNull, Value: "null"}
	default:
		panic(fmt.Sprintf("value %T", v))
	}
	if valueComments {
		n.LineComment = fmt.Sprintf("# %sv%d", tag, id)
	}
	return n
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
	ignore := func(k string) bool { return host.IsAnnotation(k, "config.kubernetes.io/merge-source") }
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
