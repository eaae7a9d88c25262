package kptfile

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Name is the file name of a Kptfile.
const Name = "Kptfile"

// APIVersion is the Kptfile version this package reads (kpt 1.0).
const APIVersion = "kpt.dev/v1"

// Git is a git location of a package.
type Git struct {
	// Repo is the repository URL (any URL git accepts; kpt records it without ".git").
	Repo string
	// Directory is the package's directory in the repository ("/" for the root).
	Directory string
	// Ref is a tag, branch or commit.
	Ref string
	// Commit is the resolved commit (upstreamLock only).
	Commit string
}

// Upstream is what a Kptfile says about its upstream.
type Upstream struct {
	// Name is metadata.name.
	Name string
	// Git is upstream.git; nil when the Kptfile has no upstream.
	Git *Git
	// UpdateStrategy is upstream.updateStrategy ("" when absent).
	UpdateStrategy string
	// Lock is upstreamLock.git; nil when absent.
	Lock *Git
}

// Error is a problem with a Kptfile field.
type Error struct {
	// File is the Kptfile's path as the caller named it.
	File string
	// Field is the field path, e.g. "upstream.git.repo".
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error is "<file>: <field>: <message>" (without the field when there is none).
func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Field, e.Msg)
}

// Read returns the upstream bookkeeping of the Kptfile n; file names it in errors.
// Errors (*Error): n is not a kpt.dev/v1 Kptfile; upstream or upstreamLock present but
// not of type git (kpt's other type, oci, is not supported) or without git.repo;
// a field that is not a string.
func Read(n *yaml.RNode, file string) (*Upstream, error) {
	if !vocab.IsKptfile(n) {
		return nil, &Error{File: file, Field: "kind", Msg: fmt.Sprintf("not a Kptfile (apiVersion %q, kind %q)", n.GetApiVersion(), n.GetKind())}
	}
	if v := n.GetApiVersion(); v != APIVersion {
		return nil, &Error{File: file, Field: "apiVersion", Msg: fmt.Sprintf("%q is not supported; kpt 1.0 writes %s (kpt fix migrates older Kptfiles)", v, APIVersion)}
	}
	u := &Upstream{Name: n.GetName()}
	var err error
	if u.Git, u.UpdateStrategy, err = readSection(n, file, "upstream"); err != nil {
		return nil, err
	}
	if u.Lock, _, err = readSection(n, file, "upstreamLock"); err != nil {
		return nil, err
	}
	return u, nil
}

func readSection(n *yaml.RNode, file, section string) (*Git, string, error) {
	s := n.Field(section)
	if s == nil || s.Value.IsNilOrEmpty() {
		return nil, "", nil
	}
	str := func(path ...string) (string, error) {
		v, err := s.Value.Pipe(yaml.Lookup(path...))
		if err != nil || v == nil {
			return "", nil
		}
		if v.YNode().Kind != yaml.ScalarNode {
			return "", &Error{File: file, Field: section + "." + strings.Join(path, "."), Msg: "must be a string"}
		}
		return v.YNode().Value, nil
	}
	typ, err := str("type")
	if err != nil {
		return nil, "", err
	}
	if typ != "" && typ != "git" {
		return nil, "", &Error{File: file, Field: section + ".type", Msg: fmt.Sprintf("%q is not supported; krm-merge pkg update fetches git upstreams only", typ)}
	}
	g := &Git{}
	for _, f := range []struct {
		name string
		to   *string
	}{{"repo", &g.Repo}, {"directory", &g.Directory}, {"ref", &g.Ref}, {"commit", &g.Commit}} {
		if *f.to, err = str("git", f.name); err != nil {
			return nil, "", err
		}
	}
	strategy, err := str("updateStrategy")
	if err != nil {
		return nil, "", err
	}
	if g.Repo == "" {
		return nil, "", &Error{File: file, Field: section + ".git.repo", Msg: "missing"}
	}
	if g.Directory == "" {
		g.Directory = "/"
	}
	return g, strategy, nil
}

// SetLock records a fetched upstream in the Kptfile n as `kpt pkg update` does: it sets
// upstream.git.ref to ref (when n has an upstream) and upstreamLock to type git with
// lock's repo, directory, ref and commit. Existing nodes keep their position, style and
// comments; a missing upstreamLock is added after upstream (else after metadata).
// Errors: n is not a map, or a section in the way is not a map.
func SetLock(n *yaml.RNode, ref string, lock Git) error {
	if n.YNode().Kind != yaml.MappingNode {
		return fmt.Errorf("Kptfile is not a map")
	}
	if up := n.Field("upstream"); up != nil && ref != "" {
		git, err := up.Value.Pipe(yaml.Lookup("git"))
		if err != nil {
			return err
		}
		if git != nil {
			if err := setString(git, "ref", ref); err != nil {
				return err
			}
		}
	}
	lockNode := n.Field("upstreamLock")
	if lockNode == nil || lockNode.Value.YNode().Kind != yaml.MappingNode {
		after := "metadata"
		if n.Field("upstream") != nil {
			after = "upstream"
		}
		value := yaml.NewMapRNode(nil)
		if err := insertAfter(n, after, "upstreamLock", value); err != nil {
			return err
		}
		lockNode = n.Field("upstreamLock")
	}
	if err := setString(lockNode.Value, "type", "git"); err != nil {
		return err
	}
	git := lockNode.Value.Field("git")
	if git == nil || git.Value.YNode().Kind != yaml.MappingNode {
		if err := lockNode.Value.PipeE(yaml.SetField("git", yaml.NewMapRNode(nil))); err != nil {
			return err
		}
		git = lockNode.Value.Field("git")
	}
	for _, kv := range [][2]string{{"repo", lock.Repo}, {"directory", lock.Directory}, {"ref", lock.Ref}, {"commit", lock.Commit}} {
		if err := setString(git.Value, kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// setString sets key of the map m to the string v, changing an existing scalar in place
// (its style and comments stay) or appending the field.
func setString(m *yaml.RNode, key, v string) error {
	if f := m.Field(key); f != nil && f.Value.YNode().Kind == yaml.ScalarNode {
		node := f.Value.YNode()
		if node.Value != v || node.Tag != yaml.NodeTagString {
			node.Value = v
			node.Tag = yaml.NodeTagString
		}
		return nil
	}
	return m.PipeE(yaml.SetField(key, yaml.NewStringRNode(v)))
}

// insertAfter puts key: value into the map n after the field named after (at the end
// when there is none); a field named key already there is replaced in place.
func insertAfter(n *yaml.RNode, after, key string, value *yaml.RNode) error {
	c := n.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == key {
			c[i+1] = value.YNode()
			return nil
		}
	}
	at := len(c)
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == after {
			at = i + 2
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: key, Tag: yaml.NodeTagString}
	n.YNode().Content = append(c[:at], append([]*yaml.Node{k, value.YNode()}, c[at:]...)...)
	return nil
}

// Prepare gives a fetched package's root Kptfile the bookkeeping `kpt pkg get` adds:
// metadata.name set to name, upstream set to a copy of upstream with git.ref set to
// ref (nil upstream: left as it is), and upstreamLock set from lock, both placed after
// metadata as kpt writes them. n is changed in place.
// Errors: n is not a map.
func Prepare(n *yaml.RNode, name string, upstream *yaml.RNode, ref string, lock Git) error {
	if n.YNode().Kind != yaml.MappingNode {
		return fmt.Errorf("Kptfile is not a map")
	}
	if name != "" {
		if err := n.SetName(name); err != nil {
			return err
		}
	}
	if upstream != nil {
		if err := insertAfter(n, "metadata", "upstream", upstream.Copy()); err != nil {
			return err
		}
	}
	return SetLock(n, ref, lock)
}

// Default returns the Kptfile `kpt pkg get` writes for a package that has none
// (kptfileutil.DefaultKptfile): apiVersion kpt.dev/v1, kind Kptfile, metadata.name.
func Default(name string) *yaml.RNode {
	n := yaml.NewMapRNode(nil)
	_ = n.PipeE(yaml.SetField("apiVersion", yaml.NewScalarRNode(APIVersion)))
	_ = n.PipeE(yaml.SetField("kind", yaml.NewScalarRNode("Kptfile")))
	md := yaml.NewMapRNode(nil)
	_ = md.PipeE(yaml.SetField("name", yaml.NewStringRNode(name)))
	_ = n.PipeE(yaml.SetField("metadata", md))
	return n
}
