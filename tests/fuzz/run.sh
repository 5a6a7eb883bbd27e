#!/usr/bin/env bash
# tests/fuzz: libFuzzer (ASan + UBSan) over the SFrame core's decode, lookup,
# step and walk.  A smoke of FUZZ_SECONDS (default 60) from the committed seed
# corpus tests/fuzz/seeds (new inputs go to build/corpus, never to seeds).
# Run from the repository root: bash tests/fuzz/run.sh [NAME...]
# (build, seeds, smoke; tests/select.sh)
cd "$(dirname "$0")" || exit 1
. ../select.sh fuzz "$@"
secs=${FUZZ_SECONDS:-60}
mkdir -p build/corpus build/artifacts

# Every seed must decode cleanly first (the corpus is not stale).
seeds() {
	./build/fuzz_sframe -runs=0 seeds >build/seeds.log 2>&1 && return 0
	grep -m1 -E 'ERROR|runtime error' build/seeds.log
	return 1
}

# FUZZ_SECONDS of fuzzing: no crash, no artifact, and it really ran.
smoke() {
	local rc execs

	rm -f build/artifacts/*
	./build/fuzz_sframe build/corpus seeds -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix=build/artifacts/ \
		>build/fuzz.log 2>&1
	rc=$?
	execs=$(awk '/stat::number_of_executed_units/ {print $2}' build/fuzz.log)
	echo "# fuzz: ${secs}s, ${execs:-0} executions, exit $rc"
	if [ $rc = 0 ] && [ -z "$(ls build/artifacts)" ] && [ "${execs:-0}" -gt 0 ]; then
		pass smoke
	else
		fail smoke "exit $rc, artifacts: $(ls build/artifacts | tr '\n' ' ') $(grep -m1 -E 'ERROR|runtime error' build/fuzz.log)"
	fi
}

if ! make -s build/fuzz_sframe >build/make.log 2>&1; then
	fail build "$(tail -n 3 build/make.log | tr '\n' ' ')"
	exit 0
fi
pass build
run_test seeds seeds
if want smoke; then smoke; fi
