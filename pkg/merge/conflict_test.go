package merge

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func scalar(v string) *yaml.RNode { return yaml.NewScalarRNode(v) }

func TestConflictString(t *testing.T) {
	replicas := fieldpath.Path{}.Field("spec").Field("replicas")
	c := Conflict{Path: replicas, Kind: BothChanged, Original: scalar("1"), Updated: scalar("2"), Dest: scalar("3"), Winner: vocab.Updated}
	if got, want := c.String(), "spec.replicas: changed on both sides (original 1, updated 2, dest 3); updated wins"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	c.Kind, c.Updated, c.Winner = DeletedUpstream, nil, vocab.Dest
	if got, want := c.Describe(), "deleted upstream, changed locally (original 1, updated <absent>, dest 3)"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	tag := Part{Kind: TagPart, Change: ChangedBoth, Original: "v1", Updated: "v2", Dest: "v1-local"}
	c = Conflict{Path: fieldpath.Path{}.Field("image"), Kind: BothChanged, Winner: vocab.Updated, Part: &tag}
	if got, want := c.Describe(), "changed on both sides: the tag (original v1, updated v2, dest v1-local)"; got != want {
		t.Errorf("Describe() of a part = %q, want %q", got, want)
	}
}

// TestConflictDescribeCutsLongValues: values longer than 60 bytes that share a long
// beginning are shown up to their difference, at the end here (a value that shares
// nothing with them, "short", places nothing).
func TestConflictDescribeCutsLongValues(t *testing.T) {
	common := strings.Repeat("x", 70)
	c := Conflict{Kind: BothChanged, Original: scalar(common + "a"), Updated: scalar(common + "b"), Dest: scalar("short")}
	got := c.Describe()
	want := "changed on both sides (original ..." + strings.Repeat("x", 56) + "a, updated ..." + strings.Repeat("x", 56) + "b, dest short)"
	if got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
}

func TestConflictsError(t *testing.T) {
	a := Conflict{Path: fieldpath.Path{}.Field("a"), Kind: BothChanged, Original: scalar("1"), Updated: scalar("2"), Dest: scalar("3"), Winner: vocab.Dest}
	b := a
	b.Path, b.Winner = fieldpath.Path{}.Field("b"), vocab.Updated
	var err error = Conflicts{a}
	if got, want := err.Error(), "a: changed on both sides (original 1, updated 2, dest 3); dest wins"; got != want {
		t.Errorf("one conflict: %q, want %q", got, want)
	}
	err = Conflicts{a, b}
	want := "2 conflicts:\n  a: changed on both sides (original 1, updated 2, dest 3); dest wins\n  b: changed on both sides (original 1, updated 2, dest 3); updated wins"
	if got := err.Error(); got != want {
		t.Errorf("two conflicts:\n%s\nwant\n%s", got, want)
	}
	var cs Conflicts
	if !errors.As(err, &cs) || len(cs) != 2 {
		t.Errorf("errors.As found %v", cs)
	}
}

// TestConflictMessageShowsTheChangedDigest: a conflict between two long image
// references that differ in the digest, and a mirror's copy, names each digest.
func TestConflictMessageShowsTheChangedDigest(t *testing.T) {
	o, u, d := knativeRefs()
	c := Conflict{Kind: BothChanged, Winner: vocab.Updated, Original: scalar(o), Updated: scalar(u), Dest: scalar(d)}
	got := c.Describe()
	want := "changed on both sides (original gcr.io/knative-releases/knat...@sha256:aaaaaaaaaaaaaaaaa..., " +
		"updated gcr.io/knative-releases/knat...@sha256:bbbbbbbbbbbbbbbbb..., " +
		"dest registry.example.com/mirror/...@sha256:aaaaaaaaaaaaaaaaa...)"
	if got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	// the whole values stay in the conflict
	if c.Original.YNode().Value != o || c.Updated.YNode().Value != u || c.Dest.YNode().Value != d {
		t.Error("the conflict lost its values")
	}
}

// knativeRefs are three long references: original and updated differ in the digest
// only, dest is original's on a mirror.
func knativeRefs() (o, u, d string) {
	path := "/knative.dev/eventing/cmd/apiserver_receive_adapter@sha256:"
	return "gcr.io/knative-releases" + path + strings.Repeat("a", 64),
		"gcr.io/knative-releases" + path + strings.Repeat("b", 64),
		"registry.example.com/mirror" + path + strings.Repeat("a", 64)
}
