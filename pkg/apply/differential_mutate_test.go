package apply

import (
	"fmt"
	"sort"
)

// The differential test's edits (differential_test.go runs them): the places a value
// can change in a generated object, the mutations that make config and live differ from
// last-applied, and the fields a server fills in.

// deepCopy copies a generated value: maps and lists are new, scalars shared.
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
