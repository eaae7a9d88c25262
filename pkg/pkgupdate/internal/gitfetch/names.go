package gitfetch

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitpath"
)

// AllowedProtocols is GIT_ALLOW_PROTOCOL in the environment of every git command: the
// transports git may use, whatever the user's configuration (protocol.allow, insteadOf
// rewrites) says. ext:: and fd:: (which run commands or read descriptors) and every
// other remote helper are refused. Source: git's GIT_ALLOW_PROTOCOL (git(1)).
const AllowedProtocols = "file:git:http:https:ssh"

// schemes are the URL schemes of AllowedProtocols as git spells them in URLs
// (git+ssh and ssh+git are git's aliases of ssh).
var schemes = map[string]bool{"file": true, "git": true, "http": true, "https": true, "ssh": true, "git+ssh": true, "ssh+git": true}

// controlChar returns the first control character (C0, DEL, NUL) in s, or -1.
func controlChar(s string) rune {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return r
		}
	}
	return -1
}

// isSchemeChar reports whether c may be in a URL scheme (first: a letter only).
func isSchemeChar(first bool, c byte) bool {
	alpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	return alpha || !first && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')
}

// schemeLen returns the length of the URL scheme at the start of s (0 for none).
func schemeLen(s string) int {
	i := 0
	for i < len(s) && isSchemeChar(i == 0, s[i]) {
		i++
	}
	return i
}

// NormalizeURL checks a repository URL (from a Kptfile's upstream.git.repo or --repo)
// and returns the form the fetcher gives git and keys its cache by:
//
//   - a local path (git's rule: no ':' before the first '/') is made absolute against
//     the working directory and cleaned (../up from /a/work is /a/up), as git itself
//     reads it: two `../up` of two working directories are two repositories;
//   - a scheme URL (file://, git://, http://, https://, ssh://) and an scp-like
//     [user@]host:path are returned as given.
//
// Errors, each naming the URL: empty; starting with '-' (git would read it as an
// option: --upload-pack=<command> runs the command); holding a control character (NUL,
// newline, ...); a transport other than AllowedProtocols (the `<helper>::<address>`
// syntax such as ext::, or another scheme); a host starting with '-'.
func NormalizeURL(url string) (string, error) {
	if url == "" {
		return "", errors.New("no repository URL given")
	}
	if strings.HasPrefix(url, "-") {
		return "", fmt.Errorf("repository URL %q must not start with '-' (git would read it as an option)", url)
	}
	if c := controlChar(url); c >= 0 {
		return "", fmt.Errorf("repository URL %q holds a control character (%U)", url, c)
	}
	n := schemeLen(url)
	if n > 0 && strings.HasPrefix(url[n:], "::") { // git's remote-helper syntax, e.g. ext::<command>
		return "", fmt.Errorf("repository URL %q: transport %q is not allowed (krm-merge fetches over file, git, http, https and ssh only)", url, url[:n+2])
	}
	if n > 0 && strings.HasPrefix(url[n:], "://") {
		if !schemes[url[:n]] {
			return "", fmt.Errorf("repository URL %q: transport %q is not allowed (krm-merge fetches over file, git, http, https and ssh only)", url, url[:n+3])
		}
		if strings.HasPrefix(url[n+3:], "-") {
			return "", fmt.Errorf("repository URL %q: the host must not start with '-' (ssh would read it as an option)", url)
		}
		return url, nil
	}
	colon, slash := strings.IndexByte(url, ':'), strings.IndexByte(url, '/')
	if colon < 0 || slash >= 0 && slash < colon { // a local path (git's url_is_local_not_ssh)
		abs, err := filepath.Abs(url)
		if err != nil {
			return "", fmt.Errorf("repository path %q: %w", url, err)
		}
		return abs, nil
	}
	return url, nil // scp-like [user@]host:path; the host cannot start with '-' (checked above)
}

// IsLocal reports whether url (as a Kptfile or --repo gives it) names a repository of
// this machine: a file:// URL or a local path (absolute or relative; git's rule, as in
// NormalizeURL).
func IsLocal(url string) bool {
	n := schemeLen(url)
	if n > 0 && strings.HasPrefix(url[n:], "://") {
		return strings.EqualFold(url[:n], "file")
	}
	colon, slash := strings.IndexByte(url, ':'), strings.IndexByte(url, '/')
	return colon < 0 || slash >= 0 && slash < colon
}

// IsCommitID reports whether s is a full commit id: 40 (SHA-1) or 64 (SHA-256)
// lowercase hex digits.
func IsCommitID(s string) bool { return fullSHA.MatchString(s) }

// checkRef refuses a ref that is no valid ref name, by git's check-ref-format rules
// (and so can be no option, revision expression or refspec either). Errors quote ref.
func checkRef(ref string) error {
	bad := func(why string) error {
		return fmt.Errorf("ref %q is not a valid tag, branch or commit name: %s", ref, why)
	}
	switch {
	case ref == "":
		return errors.New("no ref given")
	case strings.HasPrefix(ref, "-"):
		return fmt.Errorf("ref %q must not start with '-' (git would read it as an option)", ref)
	case controlChar(ref) >= 0:
		return bad("it holds a control character")
	case strings.ContainsAny(ref, " ~^:?*[\\"):
		return bad("it holds one of space ~ ^ : ? * [ \\")
	case strings.Contains(ref, "..") || strings.Contains(ref, "@{") || ref == "@":
		return bad("it holds .. or @{")
	case strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") || strings.Contains(ref, "//"):
		return bad("it has an empty path component")
	case strings.HasSuffix(ref, "."):
		return bad("it ends with '.'")
	}
	for _, c := range strings.Split(ref, "/") {
		if strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return bad("a component starts with '.' or ends with .lock")
		}
	}
	return nil
}

// cleanDirectory checks a package directory ("/", "" or "/a/b", as a Kptfile's
// upstream.git.directory) and returns it without its leading and trailing slashes ("" for
// the root). Each component must be a name checkName accepts. Errors quote directory.
func cleanDirectory(directory string) (string, error) {
	d := strings.Trim(directory, "/")
	if d == "" {
		return "", nil
	}
	for _, c := range strings.Split(d, "/") {
		if err := checkName(c); err != nil {
			return "", fmt.Errorf("directory %q: %w", directory, err)
		}
	}
	return d, nil
}

// maxPath is the longest path (in bytes) Export writes: Linux's PATH_MAX.
const maxPath = 4096

// checkName refuses a tree entry name that could leave the directory it is written in,
// name or reach a git repository, or that a file system would not store as given:
//
//   - empty, "." and "..", and names holding '/' (git trees never do) or '\' (a
//     directory separator on Windows);
//   - control characters (NUL, newline, tab, ...);
//   - `.git` in any case, and the names NTFS and HFS+ take for it, as git's verify_path
//     refuses them (is_ntfs_dotgit, is_hfs_dotgit): `.git` or `git~1` (the 8.3 short
//     name) followed only by dots and spaces, up to the end or an alternate data stream
//     (`:`); `.git` with HFS+'s ignorable code points (U+200C-U+200F, U+202A-U+202E,
//     U+206A-U+206F, U+FEFF) anywhere in it.
//
// `.gitignore`, `.github`, `git~10` and the like pass.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("an empty name")
	case name == "." || name == "..":
		return fmt.Errorf("the name %q", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("the name %q holds a '/' or '\\'", name)
	case controlChar(name) >= 0:
		return fmt.Errorf("the name %q holds a control character (%U)", name, controlChar(name))
	case gitpath.IsDotGit(name):
		return fmt.Errorf("the name %q is (or a case-insensitive, NTFS or HFS+ file system takes it for) .git, a git repository", name)
	}
	return nil
}

// checkPath checks p, a slash-separated path under the export's root made of names
// checkName accepted: local (filepath.IsLocal after cleaning) and at most maxPath bytes.
func checkPath(p string) error {
	if len(p) > maxPath {
		return fmt.Errorf("the path is longer than %d bytes", maxPath)
	}
	if path.Clean(p) != p || !filepath.IsLocal(filepath.FromSlash(p)) {
		return errors.New("the path leaves the directory")
	}
	return nil
}
