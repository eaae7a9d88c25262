#!/usr/bin/env bash
# Demo: take a new upstream release of a small app with krm-merge, through kpt.
#
# Builds ./bin/krm-merge, copies examples/demo/{upstream-v1,upstream-v2,local} into a
# temporary kpt package, runs
#   kpt fn eval PKG --exec ./bin/krm-merge --fn-config FN_CONFIG --results-dir RESULTS
# and shows what happened to local/: a unified diff, the merged files, the summary and
# the conflicts. Nothing in the repository is changed (except ./bin).
#
# The functionConfig stays outside the package: kpt feeds every YAML file under the
# package directory to the function, fn-config.yaml included.
#
# Usage: bash hack/demo.sh        (KEEP=1 keeps the temporary directory)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
demo=examples/demo

die() { echo "demo.sh: $*" >&2; exit 1; }

command -v kpt >/dev/null 2>&1 ||
  die "kpt is not on PATH. Install kpt v1 (e.g. the Debian package google-cloud-cli-kpt, or https://kpt.dev/installation/) and run again."
command -v go >/dev/null 2>&1 || die "go is not on PATH (Go 1.26 builds ./bin/krm-merge)."
for d in upstream-v1 upstream-v2 local; do
  [ -d "$demo/$d" ] || die "$demo/$d is missing."
done

export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
echo "==> go build -o bin/krm-merge ."
mkdir -p bin
go build -o bin/krm-merge . || die "building the function failed."

tmp="$(mktemp -d "${TMPDIR:-/tmp}/krm-merge-demo.XXXXXX")"
if [ -n "${KEEP:-}" ]; then
  echo "==> KEEP is set: leaving $tmp in place"
else
  trap 'rm -rf "$tmp"' EXIT
fi
pkg="$tmp/pkg"
mkdir -p "$pkg" "$tmp/before"
cp -R "$demo/upstream-v1" "$demo/upstream-v2" "$demo/local" "$pkg/"
cp -R "$demo/local" "$tmp/before/"
cp "$demo/fn-config.yaml" "$tmp/fn-config.yaml"

echo
echo "==> kpt fn eval $pkg --exec ./bin/krm-merge --fn-config $tmp/fn-config.yaml --results-dir $tmp/results"
status=0
kpt fn eval "$pkg" --exec ./bin/krm-merge --fn-config "$tmp/fn-config.yaml" --results-dir "$tmp/results" || status=$?

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
  die "kpt fn eval failed (exit $status); local/ was left as it was. See the output above."
fi

echo
echo "==> What the merge did to local/ (diff -ru before/local after/local)"
(cd "$tmp" && mkdir -p after && cp -R pkg/local after/ && diff -ruN before/local after/local) |
  sed -E 's/^((---|\+\+\+) [^\t]+)\t.*/\1/' || true

echo
echo "==> Files left in the package (upstream-v1/ and upstream-v2/ were consumed)"
(cd "$pkg" && find . -type f | sed 's|^\./|  |' | sort)

echo
echo "==> The merged local/"
for f in "$pkg"/local/*.yaml; do
  echo "---------------------------------------------------------------- local/${f##*/}"
  cat "$f"
done
