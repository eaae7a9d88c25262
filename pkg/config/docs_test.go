package config_test

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// TestFunctionDocTable: the functionConfig table of docs/function.md lists the keys
// config.Keys documents (and `krm-merge --help` prints), in the same order, with the same
// defaults, so that the documentation and the code cannot drift apart.
func TestFunctionDocTable(t *testing.T) {
	rows := functionConfigTable(t, "../../docs/function.md")
	var names, docNames []string
	for _, k := range config.Keys() {
		names = append(names, k.Name)
	}
	for _, r := range rows {
		docNames = append(docNames, r.key)
	}
	if !reflect.DeepEqual(docNames, names) {
		t.Fatalf("docs/function.md's functionConfig table lists the keys\n  %v\nconfig.Keys() has\n  %v", docNames, names)
	}
	for i, k := range config.Keys() {
		want := "unset"
		if k.Default != "" {
			want = k.Default
		}
		if rows[i].def != want {
			t.Errorf("key %s: the table's default is %q, config.Keys() says %q", k.Name, rows[i].def, want)
		}
	}
}

// tableRow is one row of the functionConfig table: its key and default, backquotes removed.
type tableRow struct{ key, def string }

// functionConfigTable returns the rows of the first table whose header starts with
// "key" after the "functionConfig" heading of the file at path, outside code blocks.
func functionConfigTable(t *testing.T, path string) []tableRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		rows             []tableRow
		section, inTable bool
		fenced           bool
		keyCol, defCol   = -1, -1
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if inTable {
				break
			}
			section = strings.EqualFold(strings.TrimSpace(strings.TrimLeft(line, "#")), "functionConfig")
			continue
		}
		if !section {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		cells := splitRow(line)
		switch {
		case !inTable:
			for i, c := range cells {
				switch strings.ToLower(c) {
				case "key":
					keyCol = i
				case "default":
					defCol = i
				}
			}
			if keyCol != 0 || defCol < 0 {
				t.Fatalf("%s: the first table under \"functionConfig\" has the header %q; want key first and a default column", path, line)
			}
			inTable = true
		case strings.Trim(strings.Join(cells, ""), "-: ") == "":
			// the separator row
		default:
			if len(cells) <= defCol {
				t.Fatalf("%s: short table row %q", path, line)
			}
			rows = append(rows, tableRow{key: unquote(cells[keyCol]), def: unquote(cells[defCol])})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no functionConfig table under a \"functionConfig\" heading", path)
	}
	return rows
}

// splitRow splits a Markdown table row at the pipes that are not escaped (\|).
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// unquote removes a cell's backquotes.
func unquote(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "`", "")) }
