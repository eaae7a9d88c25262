#!/usr/bin/env bash
# Runs every fuzz target, one after another, on one worker (-parallel 1: the machine is
# shared). Usage: hack/fuzz.sh LENGTH [LOGDIR], LENGTH a -fuzztime: a duration (25s, 10m)
# or an execution count per target (2000000x).
#
# With FUZZ_SMOKE=1 (make fuzz-smoke, part of make test and CI): the seeds and the committed
# corpus are replayed first and must pass (a regression fails the build); a failure the
# short search then finds for the first time is printed as NEW FINDING, its input moved
# from testdata/fuzz (where Go saves it, and where the unit tests that follow would replay
# it) to LOGDIR/findings, and does not fail the build, so that CI's verdict depends on the
# commit, not on the fuzzer's luck. make fuzz (the long runs) fails on any finding and
# leaves its input under testdata/fuzz.
#
# Each target's instrumented test binary is built first (go test -c -fuzz, which fills
# the build cache the run then uses), untimed: on a loaded machine that build alone can
# take many minutes. A watchdog then fails a target whose progress (the baseline-coverage
# or execution count of its "fuzz: elapsed" lines) has not moved for FUZZ_STALL seconds
# (default 180), counted from the first such line, so only the fuzzing itself is timed:
# a fuzzer that stalls proves nothing. Before that first line only the link and the
# start of the binary run, bounded by FUZZ_START seconds (default 900; a binary that
# hangs before fuzzing fails too). Minimization is bounded by
# FUZZ_MINIMIZE executions per input (default 1000x; see internal/testsupport for why a
# time bound makes the count stall). A slow input (over internal/testsupport's budget) is a
# finding like any other; a hanging one leaves a goroutine dump in LOGDIR.
#
# A target may carry a third field, its own execution count, used instead of LENGTH when
# LENGTH is a count (FuzzExport runs git on every input: 2,000,000 would take days).
#
# Each target's log is LOGDIR/<Target>.log (a temporary directory without LOGDIR); the
# last line of each target's summary gives its executions, time and rate. All targets
# run even when one fails; the exit status is 1 when any failed. A failing input is
# written by go test under the package's testdata/fuzz/<Target>/: commit it with the
# fix, and it is replayed by every plain `go test` from then on.
set -uo pipefail
length=${1:?usage: hack/fuzz.sh LENGTH [LOGDIR]}
logdir=${2:-}
stall=${FUZZ_STALL:-180}
startup=${FUZZ_START:-900}
minimize=${FUZZ_MINIMIZE:-1000x}
targets=(
	"FuzzRead ./pkg/function/internal/resourcelist"
	"FuzzLoad ./pkg/config"
	"FuzzThreeWay ./pkg/merge"
	"FuzzTwoWay ./pkg/merge"
	"FuzzThreeWayComments ./pkg/merge"
	"FuzzApply ./pkg/apply"
	"FuzzIdentity ./pkg/function"
	"FuzzRepeatedKeys ./pkg/function"
	"FuzzMalformedInput ./pkg/function"
	"FuzzAppendItem ./pkg/function/internal/yamlenc"
	"FuzzFunctionAgainstGit ./pkg/function 50000x" # each execution runs git three times and the function
	"FuzzExport ./pkg/pkgupdate/internal/gitfetch 50000x" # each execution runs git: ~30 ms
)
if [ -n "${FUZZ_TARGETS:-}" ]; then # e.g. FUZZ_TARGETS="FuzzRead FuzzLoad": only these
	keep=()
	for t in "${targets[@]}"; do
		for want in $FUZZ_TARGETS; do
			[ "${t%% *}" = "$want" ] && keep+=("$t")
		done
	done
	targets=("${keep[@]}")
fi
if [ -z "$logdir" ]; then # a temporary one, kept when a target fails
	logdir=$(mktemp -d)
	trap '[ ${#failed[@]} -eq 0 ] && [ -z "${found:-}" ] && rm -rf "$logdir"' EXIT
fi
mkdir -p "$logdir"
export KRM_MERGE_FUZZ_HANGS="$logdir"
# A worker allocates fast and keeps little: collect less often (FuzzRead on 2 cores: a
# quarter more executions than with GOGC=100).
export GOGC=${GOGC:-400}

# progress prints the last execution count (or baseline progress) the log shows.
progress() {
	grep -oE '(execs: [0-9]+|baseline coverage: [0-9]+)' "$1" 2>/dev/null | tail -1
}

# run_watched runs one fuzz target with its output in $2 for $4 (a -fuzztime), killing
# it when its progress stops for $stall seconds after its first progress line, or when
# no progress line appears within $startup seconds; it returns go test's status, or 124
# for a stall.
run_watched() {
	local pkg=$1 log=$2 target=$3 fuzztime=$4
	set -m # the job gets its own process group: go test, the test binary, its worker
	go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" \
		-parallel 1 "$pkg" >"$log" 2>&1 &
	local pid=$! last="" since=$SECONDS now limit=$startup why
	set +m
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		now=$(progress "$log")
		if [ "$now" != "$last" ]; then
			last=$now since=$SECONDS limit=$stall
		elif [ $((SECONDS - since)) -ge "$limit" ]; then
			why="made no progress for ${stall}s (last: $last)"
			[ -z "$last" ] && why="started no fuzzing within ${startup}s of go test's start (its binary was built beforehand)"
			echo "STALLED: $target $why; killing it" >>"$log"
			kill -TERM -- -"$pid" 2>/dev/null
			sleep 5
			kill -KILL -- -"$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
	done
	wait "$pid"
}

failed=()
for t in "${targets[@]}"; do
	set -- $t
	if [ "${FUZZ_SMOKE:-}" = 1 ]; then
		echo "== $1 ($2): seeds and corpus"
		go test -count=1 -run "^$1\$" "$2" || { failed+=("$1 (seeds/corpus)"); continue; }
	fi
	run_length=$length
	if [ -n "${3:-}" ] && [[ "$length" == *x ]]; then
		run_length=$3
	fi
	echo "== $1 ($2) for $run_length"
	log="$logdir/$1.log"
	# The instrumented build, untimed; the run below finds it in the build cache.
	bstart=$SECONDS
	if ! go test -c -fuzz "^$1\$" -o "$logdir/$1.test" "$2" >"$log" 2>&1; then
		cat "$log"
		failed+=("$1 (build)")
		continue
	fi
	rm -f "$logdir/$1.test"
	echo "built $1's instrumented test binary in $((SECONDS - bstart))s"
	corpus="$2/testdata/fuzz/$1"
	before=$(ls "$corpus" 2>/dev/null)
	start=$SECONDS
	run_watched "$2" "$log" "$1" "$run_length"
	rc=$?
	secs=$((SECONDS - start))
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! grep -q 'Failing input written' "$log" &&
		grep -q 'context deadline exceeded' "$log"; then
		# Go's fuzz coordinator reached -fuzztime while its worker was still running an
		# input and reports the cancelled call as a failure, saving no input: the engine
		# stopping, not a finding (a slow input fails inside the worker with its input
		# saved, internal/testsupport's budget being far below any -fuzztime used here).
		echo "ENGINE DEADLINE: $1 stopped at -fuzztime with its worker busy; no input saved, not a finding" | tee -a "$log"
		rc=0
	fi
	if [ "$rc" -eq 0 ]; then
		grep -vE '^fuzz: elapsed: [0-9hms.]+, (execs|gathering)' "$log" | tail -n 4
	else # the finding in full (its input is saved under testdata/fuzz), or the stall
		grep -vE '^fuzz: elapsed: [0-9hms.]+, (execs|gathering)' "$log" | tail -n 150
		for h in "$logdir"/"$1"*.txt; do [ -e "$h" ] && { echo "hang report $h:"; head -n 60 "$h"; }; done
	fi
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
	echo "SUMMARY $1: ${execs:-0} execs in ${secs}s ($(( ${execs:-0} / (secs > 0 ? secs : 1) ))/s), exit $rc"
	if [ "$rc" -eq 0 ] && [ "${execs:-0}" -eq 0 ]; then # said, so that no one reads a search into it
		echo "NO SEARCH: $1 spent its $run_length on the baseline coverage of its corpus (seeds, testdata/fuzz and the inputs Go cached under $(go env GOCACHE)/fuzz) and ran no new input; give it longer"
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "${FUZZ_SMOKE:-}" = 1 ]; then
		mkdir -p "$logdir/findings/$1"
		for f in $(ls "$corpus" 2>/dev/null); do
			if ! grep -qxF "$f" <<<"$before"; then
				mv "$corpus/$f" "$logdir/findings/$1/"
			fi
		done
		rmdir "$corpus" 2>/dev/null
		echo "NEW FINDING by $1 (input moved to $logdir/findings/$1, log $log): fix it and commit the input under $corpus; not failing this smoke run"
		found=1
	elif [ "$rc" -ne 0 ]; then
		failed+=("$1")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz targets failed: ${failed[*]} (logs in $logdir)"
	exit 1
fi
