#!/usr/bin/env bash
# Benchmark ustack-report on a synthesized 100k-sample recording (text and
# binary, same content): time per sample for each output, measured side by
# side in one run.  Prints `bench <name> <value> <unit>` lines.
# Run from the repository root: bash tests/bench/report.sh [SAMPLES]
cd "$(dirname "$0")/../.." || exit 1
N=${1:-100000}
T=$(mktemp -d /tmp/ustack-report-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
R=tools/ustack-report/ustack-report
make -s -C tools/ustack-report >/dev/null || exit 1
CFL="-O1 -g -fomit-frame-pointer -fno-inline -fno-optimize-sibling-calls"
gcc $CFL -fPIC -shared -o "$T/libtr.so" tests/report/lib.c &&
	gcc $CFL -o "$T/prog" tests/report/prog.c "$T/libtr.so" || exit 1

# N samples over 4 threads, 16 distinct user stacks, 2 samples per stay
python3 - "$N" >"$T/bench.s" <<'EOF'
import random, sys
n = int(sys.argv[1])
r = random.Random(1)
funcs = [("prog", "leaf"), ("prog", "middle"), ("prog", "outer"),
         ("lib", "lib_inner"), ("lib", "lib_func")]
out = []
i = 0
while i < n:
    tid = 100 + i % 4
    cookie = "0x%08x%08x" % (2 * i + 1, i % 2 + 1)
    for k in range(2):
        out.append("sample cookie=%s pid=100 tid=%d cpu=%d time=%d event=cpu-clock comm=bench"
                   % (cookie, tid, i % 2, 1000 * i + k))
        out.append("    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a")
        out.append("    kernel 0xffffffff81c01234 do_syscall_64+0x34")
        i += 1
    out.append("user cookie=%s pid=100 tid=%d frames=6 end=outermost" % (cookie, tid))
    depth = r.randrange(2, 6)
    out.append("    user @%s:%s+0x%x regs" % (*funcs[r.randrange(5)], r.randrange(1, 8)))
    for d in range(depth):
        o, f = funcs[(d + i) % 5]
        out.append("    user @%s:%s+0x%x sframe" % (o, f, 1 + d % 3))
    out.append("    user @prog:main+0x10 fp")
print("\n".join(out))
EOF
GEN=(python3 tests/report/gen.py --obj "prog=$T/prog" --obj "lib=$T/libtr.so")
"${GEN[@]}" <"$T/bench.s" >"$T/bench.txt"
"${GEN[@]}" --binary --kallsyms "$T/ks" <"$T/bench.s" >"$T/bench.bin"

ns() { date +%s%N; }
run() {	# run NAME ARGS...: best of 3, ns per sample
	local name=$1 best= t0 t1 d k
	shift
	for k in 1 2 3; do
		t0=$(ns)
		$R "$@" >/dev/null || { echo "bench $name failed" >&2; return; }
		t1=$(ns)
		d=$((t1 - t0))
		[ -z "$best" ] || [ $d -lt "$best" ] && best=$d
	done
	awk -v d="$best" -v n="$N" -v name="$name" \
		'BEGIN { printf "bench %s %.1f ns\n", name, d / n }'
}
run report_text_summary_per_sample --summary "$T/bench.txt"
run report_binary_summary_per_sample --summary --kallsyms "$T/ks" "$T/bench.bin"
run report_text_perf_per_sample "$T/bench.txt"
run report_text_folded_per_sample --folded "$T/bench.txt"
run report_text_svg_per_sample --svg "$T/bench.txt"
echo "bench report_text_bytes_per_sample $(($(stat -c %s "$T/bench.txt") / N)) bytes"
echo "bench report_binary_bytes_per_sample $(($(stat -c %s "$T/bench.bin") / N)) bytes"
# Naming distinct addresses in a large object (the C library: every
# address a lookup of its own): ustack-report's sorted table against
# libdwfl's own lookup, which scans the whole table per address
# (eu-addr2line -S on the same addresses), side by side.
libc=$(ldd "$T/prog" | awk '$1 ~ /^libc\.so/ { print $3 }')
if out=$(python3 tests/report/dwfl_names.py $R "$libc"); then
	set -- $(echo "$out" | sed -n 's/^checked \([0-9]*\) .*/\1/p') \
		$(echo "$out" | sed -n 's/^seconds report \([0-9.]*\) libdwfl \([0-9.]*\)$/\1 \2/p')
	awk -v n="$1" -v r="$2" -v d="$3" 'BEGIN {
		printf "bench report_names_per_address %.0f ns\n", r * 1e9 / n
		printf "bench libdwfl_names_per_address %.0f ns\n", d * 1e9 / n
		printf "bench report_names_vs_libdwfl %.3f x\n", r / d }'
else
	echo "bench report_names failed: $(echo "$out" | tail -n 3)" >&2
fi
