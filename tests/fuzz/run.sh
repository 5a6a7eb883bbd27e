#!/usr/bin/env bash
# tests/fuzz: libFuzzer (ASan + UBSan) over the SFrame core's decode, lookup,
# step and walk.  A smoke of FUZZ_SECONDS (default 60) from the committed seed
# corpus tests/fuzz/seeds (new inputs go to build/corpus, never to seeds).
# And over the generator's ELF input (fuzz_gen: what ustackd's generation
# child reads of a user's file): a smoke of FUZZ_GEN_SECONDS (default 20)
# from tests/fuzz/seeds-gen (small gcc-built objects, and craft_fde.py's
# files that crashed the generator), new inputs to build/corpus-gen.
# Run from the repository root: bash tests/fuzz/run.sh [NAME...]
# (build, seeds, smoke, gen-seeds, gen-smoke; tests/select.sh)
cd "$(dirname "$0")" || exit 1
. ../select.sh fuzz "$@"
mkdir -p build/corpus build/corpus-gen build/artifacts

# seeds FUZZER DIR: every seed runs cleanly first (the corpus is not stale).
seeds() {
	./build/$1 -runs=0 "$2" >build/$1.seeds.log 2>&1 && return 0
	grep -m1 -E 'ERROR|runtime error' build/$1.seeds.log
	return 1
}

# smoke NAME FUZZER SEEDS CORPUS SECONDS: no crash, no artifact, and it
# really ran.
smoke() {
	local rc execs log=build/$2.log

	rm -f build/artifacts/*
	./build/$2 "$4" "$3" -max_total_time="$5" -timeout=10 \
		-rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix=build/artifacts/ \
		>"$log" 2>&1
	rc=$?
	execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
	echo "# $2: ${5}s, ${execs:-0} executions, exit $rc"
	if [ $rc = 0 ] && [ -z "$(ls build/artifacts)" ] && [ "${execs:-0}" -gt 0 ]; then
		pass "$1"
	else
		fail "$1" "exit $rc, artifacts: $(ls build/artifacts | tr '\n' ' ') $(grep -m1 -E 'ERROR|runtime error' "$log")"
	fi
}

if ! make -s build/fuzz_sframe build/fuzz_gen >build/make.log 2>&1; then
	fail build "$(tail -n 3 build/make.log | tr '\n' ' ')"
	exit 0
fi
pass build
run_test seeds seeds fuzz_sframe seeds
if want smoke; then
	smoke smoke fuzz_sframe seeds build/corpus "${FUZZ_SECONDS:-60}"
fi
run_test gen-seeds seeds fuzz_gen seeds-gen
if want gen-smoke; then
	smoke gen-smoke fuzz_gen seeds-gen build/corpus-gen "${FUZZ_GEN_SECONDS:-20}"
fi
