package yamlenc

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestItemOnAllCores: a map holding block sequences of every length around
// parallelElements, whose elements end in every state the next "-" depends on (a
// plain or quoted scalar, a literal block keeping its final line breaks, an empty
// map, a nested sequence, a map), at several depths, is written as yaml.v3 writes
// it, and as AppendItem writes it (check); a declined element declines it all.
func TestItemOnAllCores(t *testing.T) {
	elements := []string{
		"plain", "'quoted: x'", "|+\n  kept\n\n", "|-\n  stripped", "{}", "[]", "- - nested\n  - x",
		"k: v\nl: |\n  block\n\n  text\n", "k:\n- a\n- b: |+\n    x\n\n",
	}
	// element i as the element of a list whose dashes are at column col
	element := func(i, col int) string {
		lines := strings.Split(strings.TrimSuffix(elements[i%len(elements)], "\n"), "\n")
		for j := 1; j < len(lines); j++ {
			if lines[j] != "" {
				lines[j] = strings.Repeat(" ", col+2) + lines[j]
			}
		}
		return strings.Repeat(" ", col) + "- " + strings.Join(lines, "\n") + "\n"
	}
	for _, n := range []int{1, parallelElements - 1, parallelElements, parallelElements + 1, 5 * parallelElements} {
		for shift := range elements {
			var b strings.Builder
			b.WriteString("apiVersion: v1\nspec:\n  original:\n")
			for i := 0; i < n; i++ {
				b.WriteString(element(i+shift, 2))
			}
			b.WriteString("  deeper:\n    list:\n")
			for i := 0; i < n; i++ {
				b.WriteString(element(i+shift, 4))
			}
			b.WriteString("  after: x\n")
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(b.String()), &doc); err != nil {
				t.Fatalf("%d elements: %v\n%s", n, err, b.String())
			}
			if !check(t, fmt.Sprintf("%d elements, shift %d", n, shift), doc.Content[0]) {
				t.Errorf("%d elements, shift %d: declined", n, shift)
			}
			// a comment in the last element declines it all
			last := doc.Content[0].Content[3].Content[1]
			last.Content[len(last.Content)-1].HeadComment = "# no"
			if _, ok := ItemOnAllCores(doc.Content[0]); ok {
				t.Errorf("%d elements, shift %d: accepted with a comment", n, shift)
			}
		}
	}
}
