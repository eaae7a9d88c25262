#!/usr/bin/env bash
# Runs every fuzz target (issue 7) for the given time each, one after another, on one
# worker (-parallel 1: the machine is shared). Usage: hack/fuzz.sh DURATION [LOGDIR]
# With FUZZ_SMOKE=1 (make fuzz-smoke, part of make test and CI): the seeds and the committed
# corpus are replayed first and must pass (a regression fails the build); a failure the
# short search then finds for the first time is printed as NEW FINDING, its input saved
# under testdata/fuzz, and does not fail the build, so that CI's verdict depends on the
# commit, not on the fuzzer's luck. make fuzz (the long runs) fails on any finding.
# e.g. `hack/fuzz.sh 25s` (make fuzz-smoke) or `hack/fuzz.sh 10m /tmp/fuzz` (make fuzz).
# All targets run even when one fails; the exit status is 1 when any failed. A failing
# input is written by go test under the package's testdata/fuzz/<Target>/: commit it with
# the fix, and it is replayed by every plain `go test` from then on.
set -uo pipefail
dur=${1:?usage: hack/fuzz.sh DURATION [LOGDIR]}
logdir=${2:-}
targets=(
	"FuzzRead ./internal/resourcelist"
	"FuzzLoad ./pkg/config"
	"FuzzThreeWay ./pkg/merge"
	"FuzzTwoWay ./pkg/merge"
	"FuzzApply ./pkg/apply"
	"FuzzAppendItem ./internal/yamlenc"
)
failed=()
for t in "${targets[@]}"; do
	set -- $t
	if [ "${FUZZ_SMOKE:-}" = 1 ]; then
		echo "== $1 ($2): seeds and corpus"
		go test -count=1 -run "^$1\$" "$2" || { failed+=("$1 (seeds/corpus)"); continue; }
	fi
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
	if [ "$rc" -ne 0 ] && [ "${FUZZ_SMOKE:-}" = 1 ]; then
		echo "NEW FINDING by $1 (input saved under $2/testdata/fuzz/$1): fix it and commit the input; not failing this smoke run"
	elif [ "$rc" -ne 0 ]; then
		failed+=("$1")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz targets failed: ${failed[*]}"
	exit 1
fi
