package apply

// The differential test's object generator (differential_test.go runs it): random
// objects of the built-in kinds in typed, and their YAML with a unique comment on
// every key and value.

import (
	"fmt"
	"math/rand"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

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
