package host

import (
	"sort"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/metanode"
)

// SetAnnotations makes n's host annotations (isHost) exactly host: those not in
// host are removed, and each of host, in key order, is set. n's annotations are its own
// (withOwnAnnotations). The result is the node tree of kyaml's calls
// (yaml.ClearAnnotation for each removed key, then yaml.SetAnnotation for each key in
// order, then ClearEmptyAnnotations), which it makes directly when n's annotations
// are a non-empty map with distinct keys that keeps at least one annotation (setFast),
// and through those calls otherwise.
func SetAnnotations(n *yaml.RNode, host map[string]string, isHost func(string) bool) {
	keys := make([]string, 0, len(host))
	for k := range host {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !setFast(n.YNode(), host, keys, isHost) {
		for k := range n.GetAnnotations() {
			if isHost(k) {
				if _, ok := host[k]; !ok {
					_ = n.PipeE(yaml.ClearAnnotation(k))
				}
			}
		}
		for _, k := range keys {
			_ = n.PipeE(yaml.SetAnnotation(k, host[k]))
		}
	}
	ClearEmptyAnnotations(n)
}

// setFast is setHostAnnotations's direct path; it reports false, having changed
// nothing, when n is outside it. The kyaml calls it stands for:
//   - ClearAnnotation(k) removes the key's pair;
//   - SetAnnotation(k, v) on a map that is not empty is metanode.Set.
//
// Maps that could become empty before a SetAnnotation (which would then drop and
// re-create them at the end of metadata), annotations that are not metanode.Plain
// (repeated keys: kyaml clears the first and sets the last) and values that are not
// valid UTF-8 (kyaml writes them as !!binary) go the slow way.
func setFast(root *yaml.Node, host map[string]string, keys []string, isHost func(string) bool) bool {
	an := metanode.Plain(root)
	if an == nil {
		return false
	}
	kept := 0
	for i := 0; i < len(an.Content); i += 2 {
		if _, ok := host[an.Content[i].Value]; ok || !isHost(an.Content[i].Value) {
			kept++
		}
	}
	if kept == 0 && len(keys) > 0 {
		return false
	}
	for _, k := range keys {
		if !utf8.ValidString(host[k]) {
			return false
		}
	}
	out := an.Content[:0]
	for i := 0; i < len(an.Content); i += 2 {
		k, v := an.Content[i], an.Content[i+1]
		if _, ok := host[k.Value]; !ok && isHost(k.Value) {
			continue // cleared
		}
		out = append(out, k, v)
	}
	for i := len(out); i < len(an.Content); i++ {
		an.Content[i] = nil
	}
	an.Content = out
	for _, k := range keys {
		metanode.Set(an, k, host[k])
	}
	return true
}
