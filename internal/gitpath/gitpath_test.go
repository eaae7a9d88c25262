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
