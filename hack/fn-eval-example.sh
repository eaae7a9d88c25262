#!/usr/bin/env bash
# Run an example of the function through kpt fn eval: three directories side by side.
#
# Usage: bash hack/fn-eval-example.sh [EXAMPLE]     (default examples/blueprint)
#   KEEP=1            keep the temporary directory
#   KRM_MERGE=PATH    run this binary instead of building ./bin/krm-merge
#
# EXAMPLE is a directory holding package/ (the original, updated and dest directories side
# by side) and fn-config.yaml (a ResourceMerge choosing them by path). The script builds
# ./bin/krm-merge, copies package/ into a temporary directory, runs
#   kpt fn eval PKG --exec ./bin/krm-merge --fn-config FN_CONFIG --results-dir RESULTS
# and shows what happened to the dest directory: the results (summary and conflicts), a
# unified diff and the files left. Nothing in the repository is changed (except ./bin).
#
# The functionConfig stays outside the package: kpt feeds every YAML file under the
# package directory to the function.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
example="${1:-examples/blueprint}"
example="${example%/}"

die() { echo "demo.sh: $*" >&2; exit 1; }

command -v kpt >/dev/null 2>&1 ||
  die "kpt is not on PATH. Install kpt v1 (e.g. the Debian package google-cloud-cli-kpt, or https://kpt.dev/installation/) and run again."
[ -n "${KRM_MERGE:-}" ] || command -v go >/dev/null 2>&1 || die "go is not on PATH (Go 1.26 builds ./bin/krm-merge)."
[ -d "$example/package" ] || die "$example/package is missing (an example holds package/ and fn-config.yaml)."
[ -f "$example/fn-config.yaml" ] || die "$example/fn-config.yaml is missing."

# spec_value KEY prints the functionConfig's spec.KEY (a plain scalar, comments dropped).
spec_value() {
  awk -v key="$1" '
    /^spec:/ { in_spec = 1; next }
    /^[^ #]/ { in_spec = 0 }
    in_spec && $1 == key ":" { v = $2; gsub(/["'\'']/, "", v); print v; exit }
  ' "$example/fn-config.yaml"
}
dest="$(spec_value destPath)"
original="$(spec_value originalPath)"
updated="$(spec_value updatedPath)"
[ -n "$dest" ] && [ -d "$example/package/$dest" ] ||
  die "$example/fn-config.yaml names destPath '$dest', which is not a directory of $example/package."

fn="${KRM_MERGE:-./bin/krm-merge}"
if [ -z "${KRM_MERGE:-}" ]; then
  export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
  echo "==> go build -o bin/krm-merge ."
  mkdir -p bin
  go build -o bin/krm-merge . || die "building the function failed."
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/krm-merge-demo.XXXXXX")"
if [ -n "${KEEP:-}" ]; then
  echo "==> KEEP is set: leaving $tmp in place"
else
  trap 'rm -rf "$tmp"' EXIT
fi
pkg="$tmp/pkg"
mkdir -p "$tmp/before"
cp -R "$example/package" "$pkg"
cp -R "$example/package/$dest" "$tmp/before/"
cp "$example/fn-config.yaml" "$tmp/fn-config.yaml"

echo
echo "==> kpt fn eval $pkg --exec $fn --fn-config $tmp/fn-config.yaml --results-dir $tmp/results"
status=0
kpt fn eval "$pkg" --exec "$fn" --fn-config "$tmp/fn-config.yaml" --results-dir "$tmp/results" || status=$?

# summarize_results prints kpt's results.yaml (a FunctionResultList) in short form: the
# summary line, then each warning or error with its resource and field path.
summarize_results() {
  awk '
    function unquote(s) {
      sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
      if (s ~ /^'\''.*'\''$/) { s = substr(s, 2, length(s) - 2); gsub(/'\'''\''/, "'\''", s) }
      else if (s ~ /^".*"$/) { s = substr(s, 2, length(s) - 2); gsub(/\\"/, "\"", s) }
      return s
    }
    function value(line) { sub(/^[^:]*:[ \t]*/, "", line); return unquote(line) }
    function flush() {
      if (msg == "") return
      if (sev == "info") print "  summary: " msg
      else {
        ref = kind (ns != "" ? " " ns "/" : " ") name
        if (kind == "") ref = "(functionConfig or input)"
        printf "  %-7s %s\n", sev, ref
        if (fpath != "") {
          print "          field: " fpath
          p = "conflict: " fpath ": "
          if (index(msg, p) == 1) msg = "conflict: " substr(msg, length(p) + 1)
        }
        print "          " msg
      }
      msg = sev = kind = name = ns = fpath = block = ""
    }
    /^[ \t]*- message:/ { flush(); msg = value($0); next }
    /^[ \t]*severity:/  { sev = value($0); next }
    /^[ \t]*(resourceRef|field|file):/ { block = $1; sub(/:$/, "", block); next }
    /^[ \t]*kind:/      { if (block == "resourceRef") kind = value($0); next }
    /^[ \t]*name:/      { if (block == "resourceRef") name = value($0); next }
    /^[ \t]*namespace:/ { if (block == "resourceRef") ns = value($0); next }
    /^[ \t]*path:/      { if (block == "field") fpath = value($0); next }
    END { flush() }
  ' "$1"
}

echo
echo "==> Results"
if [ -f "$tmp/results/results.yaml" ]; then
  summarize_results "$tmp/results/results.yaml"
else
  echo "  (kpt wrote no results file)"
fi

if [ "$status" -ne 0 ]; then
  die "kpt fn eval failed (exit $status); $dest/ was left as it was. See the output above."
fi

echo
echo "==> What the merge did to $dest/ (diff -ruN before/$dest after/$dest)"
(cd "$tmp" && mkdir -p after && cp -R "pkg/$dest" after/ && diff -ruN "before/$dest" "after/$dest") |
  sed -E 's/^((---|\+\+\+) [^\t]+)\t.*/\1/' || true

echo
echo "==> Files left in the package ($original/ and $updated/ lost their KRM files: the merge consumed them)"
(cd "$pkg" && find . -type f | sed 's|^\./|  |' | sort)
