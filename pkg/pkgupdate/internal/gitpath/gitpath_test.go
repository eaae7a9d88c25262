package gitpath

import "testing"

// The spellings git's verify_path refuses, and names that only look alike.
func TestIsDotGit(t *testing.T) {
	for name, want := range map[string]bool{
		".git": true, ".GIT": true, ".Git": true, ".git.": true, ".git. .": true, ".git ": true,
		".git::$INDEX_ALLOCATION": true, "git~1": true, "GIT~1": true, ".g\u200cit": true, "\ufeff.git": true,
		".g\u200cit.": true, ".gi\u202et": true,
		"git": false, ".gitignore": false, ".git.foo": false, "x.git": false, ".github": false, "git~2": false,
		"": false, ".": false, "..": false,
	} {
		if got := IsDotGit(name); got != want {
			t.Errorf("IsDotGit(%q) = %v, want %v", name, got, want)
		}
	}
	for rel, want := range map[string]bool{"a/.git/config": true, "sub/.GIT": true, "a/b/c": false, ".github/workflows": false} {
		if got := HasDotGit(rel); got != want {
			t.Errorf("HasDotGit(%q) = %v, want %v", rel, got, want)
		}
	}
}

// Names a case-insensitive or normalising file system (NTFS, APFS, HFS+) opens as one
// file have one Key.
func TestKey(t *testing.T) {
	same := [][]string{
		{".krm-merge-in-progress", ".KRM-MERGE-IN-PROGRESS", ".Krm-Merge-In-Progre\u017fs", ".krm-merge-in-progress.", ".krm-merge-in-progress::$DATA", ".krm-\u200cmerge-in-progress", ".krm-merge-in-progress "},
		{"caf\u00e9", "CAF\u0045\u0301", "cafe\u0301"},
		{"kelvin", "\u212aELVIN"},
	}
	for _, group := range same {
		for _, n := range group[1:] {
			if Key(n) != Key(group[0]) {
				t.Errorf("Key(%q) = %q, Key(%q) = %q; want one key", n, Key(n), group[0], Key(group[0]))
			}
		}
	}
	for _, pair := range [][2]string{{".krm-merge-in-progress", ".krm-merge-in-progres"}, {"a", "b"}, {"cafe", "caf\u00e9"}} {
		if Key(pair[0]) == Key(pair[1]) {
			t.Errorf("Key(%q) == Key(%q)", pair[0], pair[1])
		}
	}
}
