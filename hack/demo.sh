#!/usr/bin/env bash
# Demo: krm-merge pkg update takes a new upstream release into a customised copy.
#
# Usage: bash hack/demo.sh          (make demo)
#   KEEP=1            keep the temporary directory
#   KRM_MERGE=PATH    run this binary instead of building ./bin/krm-merge
#
# The releases are examples/ingress-nginx/upstream: ingress-nginx's published
# deploy/static/provider/cloud/deploy.yaml at controller-v1.12.0 and controller-v1.13.0,
# unmodified. The script
#   1. builds a git repository holding the two releases, tagged as upstream tags them;
#   2. fetches controller-v1.12.0 with `kpt pkg get` into a work repository and
#      customises it as a user running an air-gapped cluster would: the three images
#      pulled from a mirror (registry.example.com/mirror), the admission job's pods kept
#      5 minutes after it finishes (ttlSecondsAfterFinished: 300), and commits;
#   3. runs `krm-merge pkg update ingress-nginx@controller-v1.13.0`: upstream's new image
#      tags and digests arrive on the mirror (merged inside the image references), and
#      the one genuine conflict (upstream now sets ttlSecondsAfterFinished on the same
#      Job) stops the update, written into the file as git-style markers (exit 2);
#   4. prints the marked hunk;
#   5. resolves it as a person would, keeping our side (the edit is made by the script
#      and shown as a diff of the file before and after it), and runs
#      `krm-merge pkg update ingress-nginx --continue`, which records the new release;
#   6. shows what the update changed, each change under the resource it belongs to.
# Nothing in the repository is changed (except ./bin). Needs kpt, git and Go.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
example=examples/ingress-nginx
old=controller-v1.12.0
new=controller-v1.13.0
pkgpath=deploy/static/provider/cloud

die() { echo "demo.sh: $*" >&2; exit 1; }
step() { printf '\n==> %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; }

# owners FILE: "LINE<TAB>Kind name" for every line of FILE, the resource the line is in
# (documents split at ---; the name is metadata.name).
owners() {
  awk '
    FNR == 1 { pass++; doc = 0; meta = 0 }
    /^---/ { doc++; meta = 0; if (pass == 2) print FNR "\t"; next }
    pass == 1 {
      if (/^kind: /) kind[doc] = $2
      if (/^metadata:/) meta = 1; else if (/^[^ #]/) meta = 0
      if (meta && /^  name: /) name[doc] = $2
      next
    }
    { print FNR "\t" kind[doc] " " name[doc] }
  ' "$1" "$1"
}

# by_resource FILE PATTERN: the -U0 diff of FILE on stdin, its lines matching PATTERN
# under the resource (of FILE as it is now) each belongs to.
by_resource() {
  awk -F '\t' -v want="$2" '
    NR == FNR { own[$1] = $2; next }
    /^(\+\+\+|---)/ { next }
    /^@@/ { match($0, /\+[0-9]+/); n = substr($0, RSTART + 1, RLENGTH - 1) + 0; next }
    /^\+/ { if ($0 ~ want) out(own[n], $0); n++; next }
    /^-/ { if ($0 ~ want) out(own[n > 0 ? n : 1], $0) }
    function out(o, l) { if (o != last) { print "  " o ":"; last = o } print "    " l }
  ' <(owners "$1") -
}

# in_resource FILE: grep -n output of FILE on stdin, each line under its resource.
in_resource() {
  awk -F '\t' '
    NR == FNR { own[$1] = $2; next }
    { split($0, p, ":"); o = own[p[1]]; if (o != last) { print "  " o ":"; last = o } print "    " $0 }
  ' <(owners "$1") -
}

# marked FILE: each conflict hunk of FILE (<<<<<<< to >>>>>>>) with its line numbers and
# the 3 lines before it.
marked() {
  awk '
    /^<<<<<<<( |$)/ {
      if (hunks++) print "--"
      for (i = NR - 3; i < NR; i++) if (i > 0) printf "%d-%s\n", i, prev[i % 3]
      in_hunk = 1
    }
    in_hunk { printf "%d:%s\n", NR, $0 }
    /^>>>>>>>( |$)/ { in_hunk = 0 }
    { prev[NR % 3] = $0 }
  ' "$1"
}

# keep_local FILE: FILE with every conflict resolved to its local side (the lines
# between <<<<<<< and ||||||| or =======), whatever the other sides hold.
keep_local() {
  awk '
    /^<<<<<<<( |$)/ { side = "local"; next }
    side == "local" && (/^\|\|\|\|\|\|\|( |$)/ || /^=======$/) { side = "other"; next }
    side == "other" && /^=======$/ { next }
    side != "" && /^>>>>>>>( |$)/ { side = ""; next }
    side != "other" { print }
  ' "$1"
}

command -v kpt >/dev/null 2>&1 ||
  die "kpt is not on PATH. Install kpt v1 (e.g. the Debian package google-cloud-cli-kpt) and run again."
command -v git >/dev/null 2>&1 || die "git is not on PATH."
[ -n "${KRM_MERGE:-}" ] || command -v go >/dev/null 2>&1 || die "go is not on PATH (Go 1.26 builds ./bin/krm-merge)."
for t in "$old" "$new"; do
  [ -f "$example/upstream/$t/deploy.yaml" ] || die "$example/upstream/$t/deploy.yaml is missing."
done

krm="${KRM_MERGE:-$root/bin/krm-merge}"
if [ -z "${KRM_MERGE:-}" ]; then
  export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
  step "go build -o bin/krm-merge ."
  mkdir -p bin
  go build -o bin/krm-merge . || die "building krm-merge failed."
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/krm-merge-demo.XXXXXX")"
if [ -n "${KEEP:-}" ]; then
  echo "KEEP is set: leaving $tmp in place"
else
  trap 'rm -rf "$tmp"' EXIT
fi
# The demo's own git identity, cache and no user configuration (signing, hooks).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.com GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.com
export KRM_MERGE_CACHE_DIR="$tmp/cache"

step "1. An upstream repository with ingress-nginx $old and $new"
up="$tmp/ingress-nginx"
git init -q -b main "$up"
for t in "$old" "$new"; do
  mkdir -p "$up/$pkgpath"
  cp "$example/upstream/$t/deploy.yaml" "$up/$pkgpath/deploy.yaml"
  git -C "$up" add -A
  git -C "$up" commit -qm "$t"
  git -C "$up" tag "$t"
done
echo "$up: tags $(git -C "$up" tag | tr '\n' ' ')"

step "2. kpt pkg get $old, customised and committed"
work="$tmp/work"
git init -q -b main "$work"
cd "$work"
show "kpt pkg get file://$up.git/$pkgpath@$old ingress-nginx"
kpt pkg get "file://$up.git/$pkgpath@$old" ingress-nginx >/dev/null 2>&1 ||
  die "kpt pkg get failed: $(kpt pkg get "file://$up.git/$pkgpath@$old" "$tmp/retry" 2>&1 | tail -1)"
git add -A
git commit -qm "kpt pkg get ingress-nginx@$old"
deploy=ingress-nginx/deploy.yaml
# Our customisations: every image from the mirror; the admission-create job's pods
# kept 5 minutes after it finishes (the first Job of the file).
sed -i 's#image: registry.k8s.io/#image: registry.example.com/mirror/#' "$deploy"
awk '
  /^kind: Job$/ { job++ }
  { print }
  job == 1 && !done && /^      serviceAccountName: ingress-nginx-admission$/ { print "  ttlSecondsAfterFinished: 300 # keep the pods for debugging"; done = 1 }
' "$deploy" >"$tmp/deploy.yaml" && cat "$tmp/deploy.yaml" >"$deploy"
git commit -qam "mirror the images; keep the admission job's pods"
show "git diff HEAD~1 -U0   (under the resource each change is in)"
git --no-pager diff HEAD~1 -U0 -- "$deploy" | by_resource "$deploy" '^[-+]'

step "3. krm-merge pkg update ingress-nginx@$new"
show "krm-merge pkg update ingress-nginx@$new"
status=0
"$krm" pkg update "ingress-nginx@$new" || status=$?
[ "$status" -eq 2 ] || die "pkg update exited $status; the demo expects 2 (stopped at a conflict, marked in the file)."
echo "(exit status $status: stopped at a conflict; nothing of ours was replaced)"

step "4. The conflict, as it is in the file"
echo "$deploy: each marked hunk, <<<<<<< to >>>>>>>, and the 3 lines before it (line numbers as grep -n shows them):"
marked "$deploy" | sed 's/^/  /'

step "5. A person resolves it: our value stays; then --continue"
# The edit a person makes in an editor, done here by a script: keep the lines of the
# local side (between <<<<<<< and ||||||| or =======), drop the markers, the old
# release's side and upstream's side.
cp "$deploy" "$tmp/deploy.marked.yaml"
keep_local "$tmp/deploy.marked.yaml" >"$deploy"
! grep -q '^ *<<<<<<<' "$deploy" || die "a conflict marker is left in $deploy."
show "diff -u $deploy (as marked) $deploy (as resolved)"
diff -u --label "$deploy (as marked)" --label "$deploy (as resolved)" "$tmp/deploy.marked.yaml" "$deploy" | sed 's/^/  /' || true
show "krm-merge pkg update ingress-nginx --continue"
"$krm" pkg update ingress-nginx --continue

step "6. What the update changed in our copy (git diff HEAD)"
git --no-pager diff HEAD --stat | sed 's/^/  /'
echo
show "git diff HEAD -U0 -- $deploy   (images, ttlSecondsAfterFinished, automountServiceAccountToken; under the resource each is in)"
git --no-pager diff HEAD -U0 -- "$deploy" | by_resource "$deploy" '^[-+] *(image|ttlSeconds|automount)'
echo
show "git diff HEAD -U0 -- ingress-nginx/Kptfile"
git --no-pager diff HEAD -U0 -- ingress-nginx/Kptfile | grep -E '^[-+] ' | sed 's/^/  /'
echo
show "grep -n ttlSecondsAfterFinished $deploy   (under the resource each is in)"
grep -n 'ttlSecondsAfterFinished' "$deploy" | in_resource "$deploy"
echo
echo "The mirror stayed and upstream's $new tags and digests arrived. Two Jobs make the"
echo "admission webhook's certificate: in ingress-nginx-admission-create we had set"
echo "ttlSecondsAfterFinished and upstream set it too - the conflict, resolved by keeping ours;"
echo "ingress-nginx-admission-patch we had not changed, so upstream's new value arrived there"
echo "without a conflict. The Kptfile records $new; every other upstream change arrived."
