// Package pkgio reads a package directory into memory as kpt reads it, and encodes
// KRM files as kpt writes them.
//
// Every file under the root is read (but .git). A file is a KRM file when kpt's reader
// would read it (named *.yaml, *.yml or Kptfile, and not matched by the .krmignore of
// its package: the root's, or that of the nearest directory holding a Kptfile) and
// every YAML document in it is a map with apiVersion and kind; its
// documents are parsed as kyaml's kio.ByteReader parses them (sequence indentation
// recorded for the writer). Every other file (README.md, scripts, a YAML file that is
// a list such as a JSON 6902 patch, a YAML file with no document) is a text file.
// Files that kpt would read but that are not well-formed YAML are an error.
//
// Comments that belong to the file rather than to a resource are kept apart from the
// resources and written back in place by Encode: the file's header (every comment and
// blank line before the first resource, byte for byte, whether yaml.v3 would give it
// to the document or to the resource's first field: a license header belongs to the
// file either way) in File.Header, and yaml.v3's document comments of the other
// documents (comments after a "---" set apart by a blank line, comments at the end of
// a document) beside each resource (Doc.Head, Doc.Foot).
//
// Reading holds against a hostile tree. Every file is read only as a regular file:
// opened without following a symbolic link and without blocking
// (O_NOFOLLOW|O_NONBLOCK), its type and size then checked on the open file (fstat);
// each directory is opened the same way and its entries opened relative to it, so
// that nothing swapped while the package is read leads outside it. A symbolic link, a
// FIFO, a device or a socket is an error naming it, and so is a file over the size
// limit (Options.MaxFileSize, DefaultMaxFileSize). ReadFile reads one file the same
// way. A directory or file named .git in any spelling git takes for it (GitPath) is
// left out, or, in a tree from an upstream (Options.RefuseGitPaths), an error.
//
// Package pkgupdate calls it: it reads the three trees of an update (original,
// updated, local) and encodes the merged files for pkg/pkgupdate/internal/stage to write; package
// keepbytes parses and encodes with it to check that a file's kept bytes read as the
// merged resources. The pkg command shows names and values from packages with Escape.
package pkgio
