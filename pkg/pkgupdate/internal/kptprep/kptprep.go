package kptprep

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Annotation and environment names kpt uses besides its identity annotation and comment
// (vocab.KptUpstreamIdentifier, vocab.KptMergeComment).
const (
	// BlueprintAnnotation is the Config Connector annotation kpt records its use in.
	BlueprintAnnotation = "cnrm.cloud.google.com/blueprint"
	// DisableAttributionEnv turns kpt's attribution off when set (to anything).
	DisableAttributionEnv = "KPT_DISABLE_ATTRIBUTION"
)

// Resource gives n (a resource read from a fetched package) kpt pkg get's bookkeeping,
// in place. Kptfiles, resources without metadata and resources with neither a name, a
// namespace nor labels (a kustomization.yaml, a Component: kpt pkg get's
// addmergecomment filter leaves them as they are) are left alone; any other nameless
// resource gets "<namespace>/" and an identifier with an empty name, as kpt writes them.
// Errors: n's metadata cannot be read or edited (kyaml's error).
func Resource(n *yaml.RNode) error {
	if vocab.IsKptfile(n) {
		return nil
	}
	mf := n.Field(yaml.MetadataField)
	if mf == nil || mf.Value.IsNilOrEmpty() {
		return nil
	}
	meta, err := n.GetMeta()
	if err != nil {
		return nil // kpt skips what it cannot read
	}
	if meta.Name == "" && meta.Namespace == "" && len(meta.Labels) == 0 {
		return nil
	}
	key := mf.Key.YNode()
	if !strings.Contains(key.LineComment, vocab.KptMergeComment) {
		key.LineComment = fmt.Sprintf("# %s %s/%s", vocab.KptMergeComment, meta.Namespace, meta.Name)
	}
	ns, name := commentIdentity(key.LineComment)
	if ns == "" {
		ns = vocab.KptDefaultNamespace
	}
	group := vocab.Group(n.GetApiVersion())
	if err := n.PipeE(yaml.SetAnnotation(vocab.KptUpstreamIdentifier, strings.Join([]string{group, n.GetKind(), ns, name}, "|"))); err != nil {
		return err
	}
	if os.Getenv(DisableAttributionEnv) != "" || !strings.Contains(n.GetApiVersion(), ".cnrm.") {
		return nil
	}
	return n.PipeE(yaml.SetAnnotation(BlueprintAnnotation, RecordAction(n.GetAnnotations()[BlueprintAnnotation], "pkg")))
}

// commentIdentity reads "<namespace>/<name>" after the kpt-merge prefix of comment.
func commentIdentity(comment string) (ns, name string) {
	i := strings.Index(comment, vocab.KptMergeComment)
	v := strings.TrimSpace(comment[i+len(vocab.KptMergeComment):])
	ns, name, _ = strings.Cut(v, "/")
	return strings.TrimSpace(ns), strings.TrimSpace(name)
}

// RecordAction is kpt's attribution rule for the blueprint annotation's value cur and
// kpt command group ("pkg", "fn" or "live"): "kpt-<group>" when cur is empty;
// ",kpt-<group>" appended when cur has no "kpt-" part; else the group added to each
// "kpt" part, groups in the order pkg, fn, live ("kpt-fn" with pkg is "kpt-pkg-fn").
func RecordAction(cur, group string) string {
	if cur == "" {
		return "kpt-" + group
	}
	if !strings.Contains(cur, "kpt-") {
		return cur + ",kpt-" + group
	}
	parts := strings.Split(cur, ",")
	for i, p := range parts {
		if !strings.Contains(p, "kpt") {
			continue
		}
		kpt := []string{"kpt"}
		for _, g := range []string{"pkg", "fn", "live"} {
			if strings.Contains(p, g) || group == g {
				kpt = append(kpt, g)
			}
		}
		parts[i] = strings.Join(kpt, "-")
	}
	return strings.Join(parts, ",")
}
