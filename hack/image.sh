#!/usr/bin/env bash
# hack/image.sh: find a container runtime and build the krm-merge image with it.
#
#   hack/image.sh runtime                 print docker or podman (exit 2: none works)
#   hack/image.sh build IMAGE VERSION     build the Dockerfile as IMAGE (logs on stderr)
#   hack/image.sh build-if-possible IMAGE VERSION
#                                         build and print IMAGE; with no runtime print
#                                         nothing and say why (under CI=true: fail)
#
# The runtime is docker when its engine answers, else podman when it can run. When
# neither does and ../shared/tools/container/setup.sh exists (this workplace's offline
# podman harness), it is run first under CI=true or KRM_MERGE_CONTAINER_SETUP=1.
# podman builds offline: the host's module and build caches are mounted as overlays
# (:O, the build's writes are thrown away) and the build has no network.
set -euo pipefail
cd "$(dirname "$0")/.."
setup="../shared/tools/container/setup.sh"

runtime() {
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then echo docker; return; fi
  if command -v podman >/dev/null 2>&1 && podman info >/dev/null 2>&1; then echo podman; return; fi
  if [[ -f $setup && ( ${CI:-} == true || ${KRM_MERGE_CONTAINER_SETUP:-} == 1 ) ]]; then
    echo "image.sh: no container runtime works; running $setup" >&2
    bash "$setup" >&2
    if podman info >/dev/null 2>&1; then echo podman; return; fi
  fi
  echo "image.sh: no container runtime: need a Docker engine or podman" \
       "(here: bash $setup, or KRM_MERGE_CONTAINER_SETUP=1 make ...)" >&2
  return 2
}

build() {
  local image=$1 version=$2 rt
  rt=$(runtime)
  echo "image.sh: building $image (version $version) with $rt" >&2
  if [[ $rt == podman ]]; then
    go mod download
    local gocache
    gocache=$(go env GOCACHE)
    mkdir -p "$gocache"
    podman build --network none \
      -v "$(go env GOMODCACHE)":/go/pkg/mod:O -v "$gocache":/root/.cache/go-build:O \
      --build-arg VERSION="$version" -t "$image" . >&2
  else
    docker build --build-arg VERSION="$version" -t "$image" . >&2
  fi
}

case ${1:-} in
  runtime) runtime ;;
  build) build "$2" "$3" ;;
  build-if-possible)
    if ! runtime >/dev/null; then
      if [[ ${CI:-} == true ]]; then echo "image.sh: CI=true needs the image cases; failing" >&2; exit 1; fi
      echo "image.sh: skipping the image; the image cases of the e2e suite will say they are skipped" >&2
      exit 0
    fi
    build "$2" "$3"
    echo "$2" ;;
  *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
