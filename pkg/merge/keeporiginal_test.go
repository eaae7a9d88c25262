package merge_test

// vocab.Original: every conflict (and every conflicting part of a value merged inside)
// takes original's value, absent where original has none, while the rest merges as
// under the other policies. Each case also runs under vocab.Updated and vocab.Dest, so that
// it fails if vocab.Original fell back to either side.

import (
	"fmt"
	"testing"

	"github.com/krm-merge/krm-merge/internal/render"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func TestKeepOriginal(t *testing.T) {
	const pod = deployHead + "spec:\n  replicas: %s\n  template:\n    spec:\n      containers:\n"
	for _, c := range []struct {
		name                 string
		o, u, d              string
		valueMerge           bool
		want                 string // under vocab.Original, as YAML text
		wantUpdated, wantDst string // under the other policies
		conflicts            []conflictWant
	}{
		{
			name: "a scalar changed on both sides: original's; upstream's other change merged",
			o:    "a: 1\nb: 0\nc: x\n", u: "a: 2\nb: 5\nc: x\n", d: "a: 3\nb: 0\nc: y\n",
			want: "a: 1\nb: 5\nc: y\n", wantUpdated: "a: 2\nb: 5\nc: y\n", wantDst: "a: 3\nb: 5\nc: y\n",
			conflicts: []conflictWant{{"a", merge.BothChanged, "original"}},
		},
		{
			name: "added on both sides differently: absent, as original has none",
			o:    "a: 0\n", u: "a: 0\nb: 1\n", d: "a: 0\nb: 2\n",
			want: "a: 0\n", wantUpdated: "a: 0\nb: 1\n", wantDst: "a: 0\nb: 2\n",
			conflicts: []conflictWant{{"b", merge.BothChanged, "original"}},
		},
		{
			name: "deleted upstream, changed locally: original's value",
			o:    "a: 1\nb: 0\n", u: "b: 0\n", d: "a: 2\nb: 0\n",
			want: "a: 1\nb: 0\n", wantUpdated: "b: 0\n", wantDst: "a: 2\nb: 0\n",
			conflicts: []conflictWant{{"a", merge.DeletedUpstream, "original"}},
		},
		{
			name: "a map deleted locally, changed upstream: original's map",
			o:    "a: 0\nm:\n  x: 1\n", u: "a: 0\nm:\n  x: 2\n", d: "a: 0\n",
			want: "a: 0\nm:\n  x: 1\n", wantUpdated: "a: 0\nm:\n  x: 2\n", wantDst: "a: 0\n",
			conflicts: []conflictWant{{"m", merge.DeletedLocally, "original"}},
		},
		{
			name: "a keyed element deleted upstream, changed locally: original's element",
			o:    widgetHead + "items:\n- name: a\n- name: b\n  v: 1\n",
			u:    widgetHead + "items:\n- name: a\n",
			d:    widgetHead + "items:\n- name: a\n- name: b\n  v: 2\n",
			want: widgetHead + "items:\n- name: a\n- name: b\n  v: 1\n", wantUpdated: widgetHead + "items:\n- name: a\n",
			wantDst:   widgetHead + "items:\n- name: a\n- name: b\n  v: 2\n",
			conflicts: []conflictWant{{"items[name=b]", merge.DeletedUpstream, "original"}},
		},
		{
			name: "an image's tag changed on both sides: original's tag, dest's mirror kept", valueMerge: true,
			o: "image: app:1\n", u: "image: app:2\n", d: "image: mirror/app:3\n",
			want: "image: mirror/app:1\n", wantUpdated: "image: mirror/app:2\n", wantDst: "image: mirror/app:3\n",
			conflicts: []conflictWant{{"image", merge.BothChanged, "original"}},
		},
		{
			name: "an image's repository changed on both sides: original's repository, upstream's tag", valueMerge: true,
			o: "image: app:1\n", u: "image: up/app:2\n", d: "image: mirror/app:1\n",
			want: "image: app:2\n", wantUpdated: "image: up/app:2\n", wantDst: "image: mirror/app:2\n",
			conflicts: []conflictWant{{"image", merge.BothChanged, "original"}},
		},
		{
			name: "an atomic list: the conflicting run original's, the other runs merged", valueMerge: true,
			o:           fmt.Sprintf(pod, "1") + "      - name: app\n        args: [a, b, c, d, e]\n",
			u:           fmt.Sprintf(pod, "2") + "      - name: app\n        args: [a, U, c, d, e, f]\n",
			d:           fmt.Sprintf(pod, "1") + "      - name: app\n        args: [z, a, D, c, d, e]\n",
			want:        fmt.Sprintf(pod, "2") + "      - name: app\n        args: [z, a, b, c, d, e, f]\n",
			wantUpdated: fmt.Sprintf(pod, "2") + "      - name: app\n        args: [z, a, U, c, d, e, f]\n",
			wantDst:     fmt.Sprintf(pod, "2") + "      - name: app\n        args: [z, a, D, c, d, e, f]\n",
			conflicts:   []conflictWant{{"spec.template.spec.containers[name=app].args", merge.BothChanged, "original"}},
		},
		{
			name: "a multi-line string: the conflicting lines original's, the other lines merged", valueMerge: true,
			o:           "s: |\n  one\n  two\n  three\n  four\n  five\n",
			u:           "s: |\n  one\n  TWO\n  three\n  four\n  five\n  six\n",
			d:           "s: |\n  zero\n  one\n  deux\n  three\n  four\n  five\n",
			want:        "s: |\n  zero\n  one\n  two\n  three\n  four\n  five\n  six\n",
			wantUpdated: "s: |\n  zero\n  one\n  TWO\n  three\n  four\n  five\n  six\n",
			wantDst:     "s: |\n  zero\n  one\n  deux\n  three\n  four\n  five\n  six\n",
			conflicts:   []conflictWant{{"s", merge.BothChanged, "original"}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range []struct {
				policy vocab.Role
				want   string
				winner string
			}{{vocab.Original, c.want, "original"}, {vocab.Updated, c.wantUpdated, "updated"}, {vocab.Dest, c.wantDst, "dest"}} {
				o, u, d := parse(t, c.o), parse(t, c.u), parse(t, c.d)
				in := [3]string{str(o), str(u), str(d)}
				opts := merge.Options{Winner: p.policy, Lists: schema.New(schema.Options{OpenAPI: true}), ValueMerge: c.valueMerge}
				r, err := merge.ThreeWay(o, u, d, opts)
				if err != nil {
					t.Fatal(err)
				}
				if after := [3]string{str(o), str(u), str(d)}; after != in {
					t.Fatal("the merge changed its inputs")
				}
				if got := str(r.Value); got != p.want {
					t.Errorf("%s wins: got\n%s\nwant\n%s", p.winner, got, p.want)
				}
				want := make([]conflictWant, len(c.conflicts))
				for i, w := range c.conflicts {
					w.winner = p.winner
					want[i] = w
				}
				checkConflicts(t, r.Conflicts, want)
				for _, x := range r.Conflicts {
					if x.Part != nil && !merge.Equal(x.Merged, merge.LookupPath(r.Value, x.Path)) {
						t.Errorf("conflict %s: Merged %s is not the output's value", x, render.Render(x.Merged, render.Short))
					}
				}
			}
		})
	}
}
