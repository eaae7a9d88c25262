package gen

import (
	"io"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Upgrade writes a ResourceList (config.kubernetes.io/v1) for the 3-way upgrade of a
// package from the release in the directory original to the one in updated (e.g.
// testdata/upstream/kube-prometheus/v0.16.0 and v0.17.0), the dest being an unchanged
// copy of original, with the functionConfig choosing the roles in one of two ways:
//
//   - inline false: path roles. The items are original's files under old/, updated's
//     under new/ and dest's under dest/ (kpt's path and index annotations), and a v1
//     ConfigMap functionConfig sets originalPath old, updatedPath new, destPath dest;
//   - inline true: inline sources. The items are dest's, under dest/ as above, and a
//     fn.krm-merge.dev/v1alpha1 ResourceMerge functionConfig holds original's resources
//     in spec.original and updated's in spec.updated, as a kustomize transformer's
//     config carries them.
//
// The .yaml files of each directory are read in the order of their paths; a List's
// elements are resources of their own (expandLists). Both ways
// merge the same resources into the same output. Errors are the directories' (missing,
// or YAML that does not parse) and w's.
func Upgrade(w io.Writer, original, updated string, inline bool) (Stats, error) {
	// kio.LocalPackageReader skips subdirectories when it omits its annotations: they
	// are read, then set or removed
	read := func(dir, prefix string) ([]*yaml.RNode, error) {
		listed, err := (&kio.LocalPackageReader{PackagePath: dir, MatchFilesGlob: []string{"*.yaml"}}).Read()
		if err != nil {
			return nil, err
		}
		items, err := expandLists(listed)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			p, _, err := kioutil.GetFileAnnotations(it)
			if err != nil {
				return nil, err
			}
			for _, k := range []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation} {
				var f yaml.Filter = yaml.ClearAnnotation(k)
				if prefix != "" && (k == kioutil.PathAnnotation || k == kioutil.LegacyPathAnnotation) {
					f = yaml.SetAnnotation(k, path.Join(prefix, p))
				}
				if err := it.PipeE(f); err != nil {
					return nil, err
				}
			}
			if err := it.PipeE(yaml.Lookup("metadata"), yaml.FieldClearer{Name: "annotations", IfEmpty: true}); err != nil {
				return nil, err
			}
		}
		return items, nil
	}
	dest, err := read(original, "dest")
	if err != nil {
		return Stats{}, err
	}
	var items []*yaml.RNode
	var fc *yaml.RNode
	if inline {
		fc = yaml.MustParse("apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: upgrade\nspec:\n  mode: 3way\n")
		for _, side := range []struct{ key, dir string }{{"original", original}, {"updated", updated}} {
			rs, err := read(side.dir, "")
			if err != nil {
				return Stats{}, err
			}
			list := yaml.NewListRNode()
			for _, r := range rs {
				list.YNode().Content = append(list.YNode().Content, r.YNode())
			}
			if err := fc.PipeE(yaml.Lookup("spec"), yaml.SetField(side.key, list)); err != nil {
				return Stats{}, err
			}
		}
		items = dest
	} else {
		fc = yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upgrade\ndata:\n  originalPath: old\n  updatedPath: new\n  destPath: dest\n")
		old, err := read(original, "old")
		if err != nil {
			return Stats{}, err
		}
		nu, err := read(updated, "new")
		if err != nil {
			return Stats{}, err
		}
		items = append(append(old, nu...), dest...)
	}
	cw := &countingWriter{w: w}
	err = kio.ByteWriter{Writer: cw, WrappingAPIVersion: "config.kubernetes.io/v1", WrappingKind: "ResourceList",
		FunctionConfig: fc}.Write(items)
	return Stats{Items: len(items), Bytes: cw.n}, err
}

// expandLists replaces each List in items (a kind ending in "List" with an items list,
// such as kube-prometheus's ConfigMapList of Grafana dashboards, which has no
// metadata.name and so cannot be given inline) by its elements, which take its
// annotations.
func expandLists(items []*yaml.RNode) ([]*yaml.RNode, error) {
	var out []*yaml.RNode
	for _, it := range items {
		elems, err := it.Pipe(yaml.Lookup("items"))
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(it.GetKind(), "List") || elems == nil || elems.YNode().Kind != yaml.SequenceNode {
			out = append(out, it)
			continue
		}
		annotations := it.GetAnnotations()
		for _, e := range elems.YNode().Content {
			r := yaml.NewRNode(e)
			for _, k := range []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation} {
				if v, ok := annotations[k]; ok {
					if err := r.PipeE(yaml.SetAnnotation(k, v)); err != nil {
						return nil, err
					}
				}
			}
			out = append(out, r)
		}
	}
	return out, nil
}
