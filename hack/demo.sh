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
#   3. runs `krm-merge pkg update ingress-nginx@controller-v1.13.0 --on-conflict mark`:
#      upstream's new image tags and digests arrive on the mirror (merged inside the
#      image references), and the one genuine conflict (upstream now sets
#      ttlSecondsAfterFinished: 0) is written into the file as git-style markers;
#   4. resolves it by an edit (keeping ours) and runs `krm-merge pkg update --continue`,
#      which records the new release in the Kptfile;
#   5. shows what the update changed.
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
show "git show --stat HEAD; git diff HEAD~1 -U0"
git --no-pager diff HEAD~1 -U0 | grep -E '^[-+][^-+]' | sed 's/^/  /'

step "3. krm-merge pkg update ingress-nginx@$new --on-conflict mark"
show "krm-merge pkg update ingress-nginx@$new --on-conflict mark"
status=0
"$krm" pkg update "ingress-nginx@$new" --on-conflict mark || status=$?
[ "$status" -eq 1 ] || die "pkg update exited $status; the demo expects 1 (a conflict marked)."

step "4. The conflict, as it is in the file"
show "grep -n -A6 '^ *<<<<<<<' $deploy"
grep -n -A6 '^ *<<<<<<<' "$deploy" | sed 's/^/  /'
echo "  (each side alone parses: choosing every 'local' side gives our file, every '$new' side upstream's)"

step "5. Resolved by keeping ours, then --continue"
# Keep the lines between <<<<<<< and |||||||, drop the base and upstream's side.
awk '
  /^ *<<<<<<< / { side = "local"; next }
  /^ *\|\|\|\|\|\|\| / { side = "skip"; next }
  /^ *=======$/ && side == "skip" { next }
  /^ *>>>>>>> / { side = ""; next }
  side != "skip" { print }
' "$deploy" >"$tmp/resolved.yaml" && cat "$tmp/resolved.yaml" >"$deploy"
show "krm-merge pkg update ingress-nginx --continue"
"$krm" pkg update ingress-nginx --continue

step "6. What the update changed in our copy (git diff HEAD)"
git --no-pager diff HEAD --stat | sed 's/^/  /'
echo
git --no-pager diff HEAD -U0 -- "$deploy" | grep -E '^[-+] *(image|ttlSeconds|automount)' | sed 's/^/  /'
echo
git --no-pager diff HEAD -U0 -- ingress-nginx/Kptfile | grep -E '^[-+] ' | sed 's/^/  /'
echo
echo "The mirror stayed and upstream's $new tags and digests arrived; our ttlSecondsAfterFinished"
echo "won the one real conflict; the Kptfile records $new. Every other upstream change arrived."
