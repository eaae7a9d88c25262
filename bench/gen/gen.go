// Package gen writes realistic, deterministic ResourceLists for krm-merge's benchmarks
// and fast-path tests.
//
// A generated resource is one of: a Deployment or StatefulSet with 1-5 containers and
// 5-50 env vars each, a Service, a ConfigMap with 10-200 keys, or (15%) a custom
// Widget (example.com/v1) with a keyed items list. Items average about 3.4 KB. A 3-way
// list holds each resource up to three times, as original, updated and dest, chosen by
// the config.kubernetes.io/merge-source annotation and laid out as kpt lays out a
// package (original/ files, then updated/, then dest/, each with kpt's path and index
// annotations); about 20% of the resources are edited upstream and 20% locally, some on
// both sides (conflicts), a few are added or deleted upstream, deleted locally, or
// local only. A 2-way list holds src and dest copies.
//
// The same Options always give the same bytes.
package gen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Mode is the merge a generated list is for.
type Mode string

const (
	// ThreeWay lists hold original, updated and dest items.
	ThreeWay Mode = "3way"
	// TwoWay lists hold src and dest items.
	TwoWay Mode = "2way"
)

// Options choose what to generate.
type Options struct {
	// Resources is the number of distinct resources (each appears up to three times).
	Resources int
	// Mode is ThreeWay (default) or TwoWay.
	Mode Mode
	// Seed varies the content; the same seed gives the same bytes.
	Seed uint64
}

// Stats describe a generated list.
type Stats struct {
	// Items is the number of ResourceList items.
	Items int
	// Bytes is the size of the list.
	Bytes int64
}

// ResourceList writes a ResourceList (config.kubernetes.io/v1) with a ConfigMap
// functionConfig selecting opts.Mode to w.
func ResourceList(w io.Writer, opts Options) (Stats, error) {
	if opts.Mode == "" {
		opts.Mode = ThreeWay
	}
	r := rand.New(rand.NewPCG(opts.Seed, 0x6b726d2d6d657267))
	type version struct {
		role string
		obj  *Obj
	}
	var per [3][]version // original (src), updated, dest in kpt's directory order
	for i := 0; i < opts.Resources; i++ {
		base := resource(r, i)
		fate := r.IntN(100)
		upstream := r.IntN(100) < 20
		local := r.IntN(100) < 20
		updated := base.Clone()
		if upstream {
			editUpstream(r, updated)
		}
		dest := base.Clone()
		if local {
			editLocal(r, dest)
		}
		if opts.Mode == TwoWay {
			// src is upstream's new version, dest the local copy
			switch {
			case fate < 3: // new in src
				per[0] = append(per[0], version{"src", updated})
			case fate < 5: // local only
				per[2] = append(per[2], version{"dest", dest})
			default:
				per[0] = append(per[0], version{"src", updated})
				per[2] = append(per[2], version{"dest", dest})
			}
			continue
		}
		switch {
		case fate < 2: // added upstream
			per[1] = append(per[1], version{"updated", updated})
		case fate < 4: // deleted upstream
			per[0] = append(per[0], version{"original", base})
			per[2] = append(per[2], version{"dest", dest})
		case fate < 5: // deleted locally
			per[0] = append(per[0], version{"original", base})
			per[1] = append(per[1], version{"updated", updated})
		case fate < 6: // local only
			per[2] = append(per[2], version{"dest", dest})
		default:
			per[0] = append(per[0], version{"original", base})
			per[1] = append(per[1], version{"updated", updated})
			per[2] = append(per[2], version{"dest", dest})
		}
	}
	cw := &countingWriter{w: w}
	b := bufio.NewWriterSize(cw, 1<<16)
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	st := Stats{}
	for _, group := range per {
		for _, v := range group {
			it := v.obj.Clone()
			annotate(it, v.role)
			writeItem(b, it)
			st.Items++
		}
	}
	fmt.Fprintf(b, "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: merge\n  data:\n    mode: %s\n", opts.Mode)
	if err := b.Flush(); err != nil {
		return st, err
	}
	st.Bytes = cw.n
	return st, nil
}

// KeyedList writes a 3-way ResourceList of one resource whose one keyed list has n
// elements: "env" is a Deployment container's env (keyed by the Kubernetes schema),
// "cr" a Widget's spec.items (keyed by the heuristic key name). About 20% of the
// elements change upstream, a few are added and removed on each side.
func KeyedList(w io.Writer, kind string, n int, seed uint64) (Stats, error) {
	r := rand.New(rand.NewPCG(seed, 0x6b65796564))
	var base *Obj
	switch kind {
	case "env":
		env := make([]any, n)
		for i := range env {
			env[i] = O("name", fmt.Sprintf("VAR_%06d", i), "value", word(r)+"-"+strconv.Itoa(r.IntN(1000)))
		}
		base = O("apiVersion", "apps/v1", "kind", "Deployment",
			"metadata", O("name", "big", "namespace", "bench"),
			"spec", O("replicas", 1, "template", O("spec", O("containers", []any{
				O("name", "app", "image", "example.com/app:1.0", "env", env)}))))
	case "cr":
		items := make([]any, n)
		for i := range items {
			items[i] = O("name", fmt.Sprintf("item-%06d", i), "value", word(r), "weight", r.IntN(100))
		}
		base = O("apiVersion", "example.com/v1", "kind", "Widget",
			"metadata", O("name", "big", "namespace", "bench"),
			"spec", O("size", 3, "items", items))
	default:
		return Stats{}, fmt.Errorf("unknown keyed list kind %q (env, cr)", kind)
	}
	list := func(o *Obj) *[]any {
		if kind == "env" {
			c := o.Get("spec").(*Obj).Get("template").(*Obj).Get("spec").(*Obj).Get("containers").([]any)[0].(*Obj)
			return c.Ref("env")
		}
		return o.Get("spec").(*Obj).Ref("items")
	}
	updated, dest := base.Clone(), base.Clone()
	edit := func(o *Obj, p int, tag string) {
		l := list(o)
		out := (*l)[:0:0]
		for i, el := range *l {
			e := el.(*Obj)
			switch x := r.IntN(100); {
			case x < p:
				e.Set("value", word(r)+"-"+tag)
			case x < p+1 && i > 0: // removed
				continue
			case x < p+2: // a new element after this one
				out = append(out, e)
				e = O("name", fmt.Sprintf("%s-%06d", tag, i), "value", word(r))
			}
			out = append(out, e)
		}
		*l = out
	}
	edit(updated, 20, "up")
	edit(dest, 5, "local")
	cw := &countingWriter{w: w}
	b := bufio.NewWriterSize(cw, 1<<16)
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, v := range []struct {
		role string
		o    *Obj
	}{{"original", base}, {"updated", updated}, {"dest", dest}} {
		annotate(v.o, v.role)
		writeItem(b, v.o)
	}
	if err := b.Flush(); err != nil {
		return Stats{}, err
	}
	return Stats{Items: 3, Bytes: cw.n}, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// annotate sets kpt's path and index annotations for the role's directory and the role
// annotation.
func annotate(o *Obj, role string) {
	md := o.Get("metadata").(*Obj)
	ann, _ := md.Get("annotations").(*Obj)
	if ann == nil {
		ann = O()
		md.Set("annotations", ann)
	}
	name := md.Get("name").(string)
	kind := strings.ToLower(o.Get("kind").(string))
	ann.Set("config.kubernetes.io/merge-source", role)
	ann.Set("internal.config.kubernetes.io/path", role+"/"+kind+"-"+name+".yaml")
	ann.Set("internal.config.kubernetes.io/index", Str("0"))
}

var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
	"india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
	"sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"}

func word(r *rand.Rand) string { return words[r.IntN(len(words))] }

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// skewed is a count in [lo, hi] weighted towards lo (the smaller of two draws), as real
// packages have many small workloads and a few large ones.
func skewed(r *rand.Rand, lo, hi int) int { return min(between(r, lo, hi), between(r, lo, hi)) }

// resource makes the i-th resource.
func resource(r *rand.Rand, i int) *Obj {
	app := fmt.Sprintf("%s-%d", word(r), i)
	ns := "team-" + word(r)
	switch x := r.IntN(100); {
	case x < 25:
		return workload(r, "Deployment", app, ns)
	case x < 35:
		return workload(r, "StatefulSet", app, ns)
	case x < 55:
		return service(r, app, ns)
	case x < 85:
		return configMap(r, app, ns)
	default:
		return widget(r, app, ns)
	}
}

func meta(r *rand.Rand, name, ns string) *Obj {
	return O("name", name, "namespace", ns,
		"labels", O("app.kubernetes.io/name", name, "app.kubernetes.io/part-of", "bench-"+word(r),
			"app.kubernetes.io/version", Str(fmt.Sprintf("1.%d.%d", r.IntN(20), r.IntN(10)))))
}

func container(r *rand.Rand, app string, c int) *Obj {
	env := make([]any, skewed(r, 5, 50))
	for i := range env {
		name := fmt.Sprintf("%s_%s_%d", strings.ToUpper(word(r)), strings.ToUpper(word(r)), i)
		if r.IntN(10) == 0 {
			env[i] = O("name", name, "valueFrom", O("configMapKeyRef", O("name", app+"-config", "key", strings.ToLower(name))))
		} else {
			env[i] = O("name", name, "value", Str(word(r)+"-"+strconv.Itoa(r.IntN(10000))))
		}
	}
	ports := []any{O("name", "http", "containerPort", 8080+c, "protocol", "TCP")}
	if r.IntN(3) == 0 {
		ports = append(ports, O("name", "metrics", "containerPort", 9090+c, "protocol", "TCP"))
	}
	return O("name", fmt.Sprintf("%s-%d", word(r), c),
		"image", fmt.Sprintf("registry.example.com/%s/%s:v1.%d.%d", word(r), word(r), r.IntN(30), r.IntN(10)),
		"args", []any{"--port=" + strconv.Itoa(8080+c), "--log-level=info"},
		"ports", ports,
		"env", env,
		"resources", O("limits", O("cpu", Str("500m"), "memory", Str("256Mi")), "requests", O("cpu", Str("100m"), "memory", Str("128Mi"))),
		"volumeMounts", []any{O("name", "config", "mountPath", "/etc/"+app)},
		"readinessProbe", O("httpGet", O("path", "/healthz", "port", 8080+c), "periodSeconds", 10))
}

func workload(r *rand.Rand, kind, app, ns string) *Obj {
	n := skewed(r, 1, 5)
	cs := make([]any, n)
	for c := range cs {
		cs[c] = container(r, app, c)
	}
	spec := O("replicas", between(r, 1, 5),
		"selector", O("matchLabels", O("app.kubernetes.io/name", app)),
		"template", O("metadata", O("labels", O("app.kubernetes.io/name", app)),
			"spec", O("serviceAccountName", app, "containers", cs,
				"volumes", []any{O("name", "config", "configMap", O("name", app+"-config"))})))
	if kind == "StatefulSet" {
		spec.Set("serviceName", app)
		spec.Set("volumeClaimTemplates", []any{O("metadata", O("name", "data"),
			"spec", O("accessModes", []any{"ReadWriteOnce"}, "resources", O("requests", O("storage", Str("10Gi")))))})
	}
	return O("apiVersion", "apps/v1", "kind", kind, "metadata", meta(r, app, ns), "spec", spec)
}

func service(r *rand.Rand, app, ns string) *Obj {
	ports := make([]any, between(r, 1, 4))
	for i := range ports {
		ports[i] = O("name", fmt.Sprintf("%s-%d", word(r), i), "port", 80+i, "targetPort", 8080+i, "protocol", "TCP")
	}
	return O("apiVersion", "v1", "kind", "Service", "metadata", meta(r, app, ns),
		"spec", O("type", "ClusterIP", "selector", O("app.kubernetes.io/name", app), "ports", ports))
}

func configMap(r *rand.Rand, app, ns string) *Obj {
	data := O()
	for i, n := 0, skewed(r, 10, 200); i < n; i++ {
		data.Set(fmt.Sprintf("%s.%s.%d", word(r), word(r), i), Str(fmt.Sprintf("%s-%s-%d", word(r), word(r), r.IntN(100000))))
	}
	return O("apiVersion", "v1", "kind", "ConfigMap", "metadata", meta(r, app+"-config", ns), "data", data)
}

func widget(r *rand.Rand, app, ns string) *Obj {
	items := make([]any, skewed(r, 5, 60))
	for i := range items {
		items[i] = O("name", fmt.Sprintf("%s-%d", word(r), i), "value", word(r)+"-"+word(r), "weight", r.IntN(100))
	}
	return O("apiVersion", "example.com/v1", "kind", "Widget", "metadata", meta(r, app, ns),
		"spec", O("size", between(r, 1, 9), "mode", word(r), "items", items,
			"settings", O("retries", 3, "timeout", Str("30s"), "enabled", true)))
}

// editUpstream changes what an upstream release changes: images, env values, new and
// removed env vars, replicas, ConfigMap values and keys, Service ports, Widget items.
func editUpstream(r *rand.Rand, o *Obj) { edit(r, o, "up", 1+r.IntN(4)) }

// editLocal changes what a local customisation changes.
func editLocal(r *rand.Rand, o *Obj) { edit(r, o, "local", 1+r.IntN(3)) }

func edit(r *rand.Rand, o *Obj, tag string, n int) {
	for k := 0; k < n; k++ {
		switch o.Get("kind") {
		case "Deployment", "StatefulSet":
			spec := o.Get("spec").(*Obj)
			cs := spec.Get("template").(*Obj).Get("spec").(*Obj).Get("containers").([]any)
			c := cs[r.IntN(len(cs))].(*Obj)
			envp := c.Ref("env")
			switch r.IntN(5) {
			case 0:
				c.Set("image", fmt.Sprintf("registry.example.com/%s/app:v2.%d.%d-%s", word(r), r.IntN(30), r.IntN(10), tag))
			case 1:
				spec.Set("replicas", between(r, 1, 9))
			case 2:
				e := (*envp)[r.IntN(len(*envp))].(*Obj)
				e.Set("value", Str(tag+"-"+word(r)))
				e.Delete("valueFrom")
			case 3:
				*envp = append(*envp, O("name", fmt.Sprintf("%s_%s_%d", strings.ToUpper(tag), strings.ToUpper(word(r)), r.IntN(1000)), "value", Str(word(r))))
			default:
				if len(*envp) > 1 {
					i := r.IntN(len(*envp))
					*envp = append((*envp)[:i:i], (*envp)[i+1:]...)
				}
			}
		case "ConfigMap":
			data := o.Get("data").(*Obj)
			switch r.IntN(3) {
			case 0:
				data.Set(fmt.Sprintf("%s.%s.new", tag, word(r)), Str(word(r)))
			case 1:
				if data.Len() > 1 {
					data.Delete(data.keys[r.IntN(data.Len())])
				}
			default:
				data.Set(data.keys[r.IntN(data.Len())], Str(tag+"-"+word(r)))
			}
		case "Service":
			ports := o.Get("spec").(*Obj).Get("ports").([]any)
			p := ports[r.IntN(len(ports))].(*Obj)
			p.Set("targetPort", 9000+r.IntN(100))
		default:
			spec := o.Get("spec").(*Obj)
			items := spec.Ref("items")
			switch r.IntN(3) {
			case 0:
				(*items)[r.IntN(len(*items))].(*Obj).Set("value", tag+"-"+word(r))
			case 1:
				*items = append(*items, O("name", tag+"-"+word(r)+"-"+strconv.Itoa(r.IntN(1000)), "value", word(r), "weight", r.IntN(100)))
			default:
				spec.Set("size", between(r, 1, 9))
			}
		}
	}
	md := o.Get("metadata").(*Obj)
	if tag == "local" && r.IntN(2) == 0 {
		md.Get("labels").(*Obj).Set("local.example.com/owner", word(r))
	}
}
