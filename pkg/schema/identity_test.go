package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
)

// pairs renders, for each element of each source, the elements of the other sources it
// pairs with and its field-path step: "s0e1=s1e0,s2e-[name=b]" reads "element 1 of
// source 0 pairs with element 0 of source 1 and none of source 2; its step is
// [name=b]".
func pairs(x *schema.Identities, lists []*yaml.Node) string {
	var out []string
	for s, list := range lists {
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for e := range list.Content {
			id := x.Of(s, e)
			var with []string
			for o := range lists {
				if o == s {
					continue
				}
				if at := x.At(o, id); at >= 0 {
					with = append(with, fmt.Sprintf("s%de%d", o, at))
					if x.Element(o, id) != lists[o].Content[at] {
						with = append(with, "(Element disagrees with At)")
					}
				} else {
					with = append(with, fmt.Sprintf("s%de-", o))
				}
			}
			keys, values := x.Step(s, e)
			var step []string
			for i := range keys {
				step = append(step, keys[i]+"="+values[i])
			}
			out = append(out, fmt.Sprintf("s%de%d=%s[%s]", s, e, strings.Join(with, ","), strings.Join(step, ",")))
		}
	}
	return strings.Join(out, " ")
}

// TestPairIdentities: Pair numbers the elements of all sources so that those with the
// same key values share a number, whatever their index and the lists' lengths (the
// sources are read in step), fills a partial element's identity from the one complete
// tuple it agrees with (Wildcard) unless that would pair two elements of one list, and
// refuses (atomic, no Identities) a key repeated within one list, also when the sources
// are read in step.
func TestPairIdentities(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	svc := r.ForResource(rnode(t, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"))
	ports := at(svc, "spec.ports")
	cases := []struct {
		name  string
		sch   schema.Node
		lists []string
		want  string // pairs, or "atomic"
	}{
		{"inferred name key, reordered, lists of different lengths, a missing source", schema.Node{},
			[]string{"- name: a\n- name: b\n- name: c\n", "- name: c\n- name: a\n", ""},
			"s0e0=s1e1,s2e-[name=a] s0e1=s1e-,s2e-[name=b] s0e2=s1e0,s2e-[name=c] s1e0=s0e2,s2e-[name=c] s1e1=s0e0,s2e-[name=a]"},
		{"three sources, one missing an element, one adding", schema.Node{},
			[]string{"- name: a\n- name: b\n", "- name: b\n- name: x\n- name: a\n", "- name: a\n"},
			"s0e0=s1e2,s2e0[name=a] s0e1=s1e0,s2e-[name=b] s1e0=s0e1,s2e-[name=b] s1e1=s0e-,s2e-[name=x] s1e2=s0e0,s2e0[name=a] s2e0=s0e0,s1e2[name=a]"},
		{"a repeat in one list, read in step with another list that has it once", schema.Node{},
			[]string{"- name: a\n- name: b\n", "- name: b\n- name: b\n"}, "atomic"},
		{"the same key in every list is no repeat", schema.Node{},
			[]string{"- name: a\n", "- name: a\n", "- name: a\n"},
			"s0e0=s1e0,s2e0[name=a] s1e0=s0e0,s2e0[name=a] s2e0=s0e0,s1e0[name=a]"},
		{"wildcard: a port without protocol takes the one complete tuple", ports,
			[]string{"- port: 80\n", "- port: 80\n  protocol: TCP\n"},
			"s0e0=s1e0[port=80,protocol=TCP] s1e0=s0e0[port=80,protocol=TCP]"},
		{"wildcard: two complete tuples make it ambiguous: own identity", ports,
			[]string{"- port: 80\n", "- port: 80\n  protocol: TCP\n- port: 80\n  protocol: UDP\n"},
			"s0e0=s1e-[port=80] s1e0=s0e-[port=80,protocol=TCP] s1e1=s0e-[port=80,protocol=UDP]"},
		{"wildcard: blocked where a list holds the partial and the complete element", ports,
			[]string{"- port: 80\n- port: 80\n  protocol: TCP\n", "- port: 80\n"},
			"s0e0=s1e0[port=80] s0e1=s1e-[port=80,protocol=TCP] s1e0=s0e0[port=80]"},
		{"an element that is not a map", schema.Node{}, []string{"- name: a\n- b\n"}, "atomic"},
		{"a null key value", schema.Node{}, []string{"- name: a\n- name: null\n"}, "atomic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var lists []*yaml.Node
			for _, l := range c.lists {
				lists = append(lists, node(t, l))
			}
			l, x := r.Pair(c.sch, lists...)
			if d := r.Decide(c.sch, lists...); render(d) != render(l) {
				t.Errorf("Decide = %s, Pair = %s", render(d), render(l))
			}
			got := "atomic"
			if l.Type == schema.Map {
				if x == nil {
					t.Fatalf("Pair(%s): no Identities", render(l))
				}
				got = pairs(x, lists)
			} else if x != nil {
				t.Errorf("Pair(%s) returned Identities", render(l))
			}
			if got != c.want {
				t.Errorf("Pair = %s\n got %s\nwant %s", render(l), got, c.want)
			}
		})
	}
}
