package fieldrules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Policy says who owns the value at a rule's path.
type Policy string

const (
	// KeepDest: the output holds dest's value at the path (or its absence), whatever
	// updated (src) says; conflicts at and below the path are not reported. When the
	// rule changed what the merge would have written, an info result says so.
	KeepDest Policy = "keepDest"
	// TakeUpdated: the output holds updated's value at the path (3-way: its absence
	// too; 2-way: src's value where src sets the path, dest's where it does not),
	// replacing dest's even where dest changed it locally; no conflict is reported.
	// When the rule changed what the merge would have written, an info result says so.
	TakeUpdated Policy = "takeUpdated"
	// Ignore: the path is neither merged nor reported: the output holds dest's value,
	// conflicts at and below the path are not counted, and no result mentions it.
	Ignore Policy = "ignore"
)

// Policies returns the valid policy names, in the order the documentation lists them:
// keepDest, takeUpdated, ignore. Each call returns a new slice.
func Policies() []string { return []string{string(KeepDest), string(TakeUpdated), string(Ignore)} }

// Annotation is the per-object annotation that sets field rules for the object it is
// on, e.g. `fn.krm-merge.dev/field-rules: "spec.replicas=keepDest, status=ignore"`.
// It is read on dest and on updated (src in 2-way); dest's entries win.
const Annotation = "fn.krm-merge.dev/field-rules"

// ParsePolicy returns the policy named s. Errors: s is not one of Policies (the message
// lists them).
func ParsePolicy(s string) (Policy, error) {
	for _, p := range Policies() {
		if s == p {
			return Policy(s), nil
		}
	}
	return "", fmt.Errorf("policy %q is invalid; valid values: %s", s, strings.Join(Policies(), ", "))
}

// ParsePath reads a rule's field path (fieldpath.Parse) and rejects what a rule cannot
// address: positional selectors ([0]), since the merge pairs list elements by merge
// key or value, never by position. Errors name the path.
func ParsePath(s string) (fieldpath.Path, error) {
	p, err := fieldpath.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	for _, step := range p {
		if step.Kind == fieldpath.Index {
			return nil, fmt.Errorf("field path %q has a positional selector [%d]; select list elements by merge key "+
				"([name=app]) or value ([=value])", s, step.Idx)
		}
	}
	return p, nil
}

// PathRule is one policy for one path of one resource.
type PathRule struct {
	// Path is where the policy applies, from the resource root.
	Path fieldpath.Path
	// Policy is what happens there.
	Policy Policy
	// Source says where the rule comes from, for results: e.g. "fieldRules[0]" or
	// "dest's fn.krm-merge.dev/field-rules annotation".
	Source string
}

// Match selects resources. Empty fields match everything.
type Match struct {
	// Group is the API group ("apps"); "" matches every group.
	Group string
	// Kind is the resource kind; "" matches every kind.
	Kind string
	// Name and Namespace match metadata.name and metadata.namespace exactly.
	Name, Namespace string
	// LabelSelector is a label selector in kubectl's syntax ("app=web,tier!=db",
	// "env in (prod,staging)"), matched against the resource's labels.
	LabelSelector string

	selector labels.Selector
}

// NewMatch returns a Match, parsing labelSelector. Errors: a label selector kubectl
// would reject (k8s.io/apimachinery labels.Parse's message).
func NewMatch(group, kind, name, namespace, labelSelector string) (Match, error) {
	m := Match{Group: group, Kind: kind, Name: name, Namespace: namespace, LabelSelector: labelSelector}
	if strings.TrimSpace(labelSelector) != "" {
		sel, err := labels.Parse(labelSelector)
		if err != nil {
			return Match{}, fmt.Errorf("labelSelector %q: %v", labelSelector, err)
		}
		m.selector = sel
	}
	return m, nil
}

// Matches reports whether resource n is selected: its apiVersion's group, kind, name,
// namespace and labels fit every field that is set.
func (m Match) Matches(n *yaml.RNode) bool {
	if n == nil {
		return false
	}
	if m.Kind != "" && n.GetKind() != m.Kind {
		return false
	}
	if m.Group != "" && vocab.Group(n.GetApiVersion()) != m.Group {
		return false
	}
	if m.Name != "" && n.GetName() != m.Name {
		return false
	}
	if m.Namespace != "" && n.GetNamespace() != m.Namespace {
		return false
	}
	if m.selector != nil && !m.selector.Matches(labels.Set(n.GetLabels())) {
		return false
	}
	return true
}

// Rule is one fieldRules entry of the functionConfig.
type Rule struct {
	// Match selects the resources.
	Match Match
	// Paths are the field paths the policy applies to.
	Paths []fieldpath.Path
	// Policy is the policy.
	Policy Policy
	// Source names the entry for results, e.g. "fieldRules[0]".
	Source string
}

// ParseAnnotation reads the value of Annotation: entries "path=policy" separated by
// commas or newlines (a comma inside a [..] selector belongs to the path), e.g.
// `spec.replicas=keepDest, spec.template.spec.containers[name=app].image=takeUpdated`.
// source names the annotation's object for the rules' Source.
// Errors: an entry without "=policy", a bad path (ParsePath) or policy (ParsePolicy),
// each quoting the entry.
func ParseAnnotation(value, source string) ([]PathRule, error) {
	var out []PathRule
	for _, entry := range splitEntries(value) {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		i := lastTopLevel(entry, '=')
		if i < 0 {
			if strings.Count(entry, "[") > strings.Count(entry, "]") {
				return nil, fmt.Errorf("entry %q has a selector that is not closed with ']'", entry)
			}
			return nil, fmt.Errorf("entry %q is not path=policy (policies: %s)", entry, strings.Join(Policies(), ", "))
		}
		p, err := ParsePath(entry[:i])
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", entry, err)
		}
		pol, err := ParsePolicy(strings.TrimSpace(entry[i+1:]))
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", entry, err)
		}
		out = append(out, PathRule{Path: p, Policy: pol, Source: source})
	}
	return out, nil
}

// topLevel calls f with the index of every byte of s outside [..] selectors (a
// backslash escapes the next byte).
func topLevel(s string, f func(i int)) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				f(i)
			}
		}
	}
}

// splitEntries splits s at commas and newlines outside [..] selectors.
func splitEntries(s string) []string {
	var out []string
	start := 0
	topLevel(s, func(i int) {
		if s[i] == ',' || s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	})
	return append(out, s[start:])
}

// lastTopLevel returns the index of the last c outside [..] selectors, or -1.
func lastTopLevel(s string, c byte) int {
	last := -1
	topLevel(s, func(i int) {
		if s[i] == c {
			last = i
		}
	})
	return last
}

// For returns the rules for one resource, in increasing precedence: the functionConfig
// rules whose Match selects dest (the local object, whose labels count), then updated's
// annotation (src in 2-way), then dest's annotation. A later rule for the same path
// replaces an earlier one, keeping the earlier's place. Either node may be nil (with
// dest nil the functionConfig rules are matched against updated). updatedRole names
// updated's side in Source and errors: "updated" in 3-way, "src" in 2-way.
// Errors: a malformed annotation, as an *AnnotationError saying on which side.
func For(rules []Rule, dest, updated *yaml.RNode, updatedRole vocab.Role) ([]PathRule, error) {
	var out []PathRule
	index := map[string]int{}
	add := func(r PathRule) {
		key := r.Path.String()
		if i, ok := index[key]; ok {
			out[i] = r
			return
		}
		index[key] = len(out)
		out = append(out, r)
	}
	target := dest
	if target == nil {
		target = updated
	}
	for _, r := range rules {
		if !r.Match.Matches(target) {
			continue
		}
		for _, p := range r.Paths {
			add(PathRule{Path: p, Policy: r.Policy, Source: r.Source})
		}
	}
	for _, side := range []struct {
		role vocab.Role
		n    *yaml.RNode
	}{{updatedRole, updated}, {vocab.Dest, dest}} {
		if side.n == nil {
			continue
		}
		v, ok := side.n.GetAnnotations()[Annotation]
		if !ok {
			continue
		}
		prs, err := ParseAnnotation(v, string(side.role)+"'s "+Annotation+" annotation")
		if err != nil {
			return nil, &AnnotationError{Role: side.role, Err: err}
		}
		for _, r := range prs {
			add(r)
		}
	}
	return out, nil
}

// AnnotationError is a malformed Annotation on one side of a merge.
type AnnotationError struct {
	// Role is the side holding it: dest, updated or src.
	Role vocab.Role
	// Err says what is wrong.
	Err error
}

// Error names the annotation and the problem.
func (e *AnnotationError) Error() string {
	return fmt.Sprintf("annotation %s: %v", Annotation, e.Err)
}

// Field is the annotation's field path, for a result's field.path.
func (e *AnnotationError) Field() string {
	return "metadata.annotations." + Annotation
}
