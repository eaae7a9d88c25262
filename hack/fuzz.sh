#!/usr/bin/env bash
# Runs every fuzz target (issue 7) for the given time each, one after another, on one
# worker (-parallel 1: the machine is shared). Usage: hack/fuzz.sh DURATION [LOGDIR]
# e.g. `hack/fuzz.sh 25s` (make fuzz-smoke) or `hack/fuzz.sh 10m /tmp/fuzz` (make fuzz).
# All targets run even when one fails; the exit status is 1 when any failed. A failing
# input is written by go test under the package's testdata/fuzz/<Target>/: commit it with
# the fix, and it is replayed by every plain `go test` from then on.
set -uo pipefail
dur=${1:?usage: hack/fuzz.sh DURATION [LOGDIR]}
logdir=${2:-}
targets=(
	"FuzzRead ./pkg/resourcelist"
	"FuzzLoad ./pkg/config"
	"FuzzThreeWay ./pkg/merge"
	"FuzzTwoWay ./pkg/merge"
	"FuzzApply ./pkg/apply"
)
failed=()
for t in "${targets[@]}"; do
	set -- $t
	echo "== $1 ($2) for $dur"
	if [ -n "$logdir" ]; then
		mkdir -p "$logdir"
		go test -run '^$' -fuzz "^$1\$" -fuzztime "$dur" -parallel 1 "$2" >"$logdir/$1.log" 2>&1
		rc=$?
		grep -E '^fuzz: elapsed' "$logdir/$1.log" | tail -1
		tail -n 8 "$logdir/$1.log" | grep -vE '^fuzz: elapsed'
	else
		go test -run '^$' -fuzz "^$1\$" -fuzztime "$dur" -parallel 1 "$2" 2>&1 | grep -vE '^fuzz: elapsed: [0-9]+s, (execs|gathering)' 
		rc=${PIPESTATUS[0]}
	fi
	[ "$rc" -eq 0 ] || failed+=("$1")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz targets failed: ${failed[*]}"
	exit 1
fi
