#!/usr/bin/env bash
# tests/sframe: the SFrame decoder/step core (module/core.mk).
#  corpus   C and C++ programs built here with gcc -Wa,--gsframe (v1) at
#           -O0/-O2/-O3/-Os, with and without frame pointers; every PC checked
#           by sfcheck against .eh_frame (libdw), libsframe 2.40 and the
#           section re-encoded as v1/v2/v3 (with and without PCREL)
#  v3       the same cases built by Debian sid's binutils (scripts/sid-binutils.sh,
#           SFrame v3, PT_GNU_SFRAME), plus DRAP/signal shapes and the PLT
#           sections (.plt.sec, .plt.got): sfcheck as above but libsframe
#           (2.40 reads v1 only); FAIL when sid's binutils cannot be had,
#           SKIP (the v3 tests; the v3 corpus's checks are left out) when
#           USTACK_NO_SID=1
#  dump     sframe-register dump == objdump --sframe (v1: the host's 2.40;
#           v3: sid's)
#  lookup   sframe-register lookup output, CONTRACT format
#  unit     hand-made v2/v3 sections (flex, signal, outermost, PCMASK),
#           malformed sections (one error code each), step and walk
# Run from the repository root: bash tests/sframe/run.sh [NAME...]
# (NAME: e.g. dump-vs-objdump, 'unit-*', 'c-O2-keep/*'; tests/select.sh)
cd "$(dirname "$0")" || exit 1
root=$(cd ../.. && pwd)
. "$root/tests/select.sh" sframe "$@"
out=build
mkdir -p "$out/corpus"
tool=$root/tools/sframe-register/sframe-register
bins=()		# the v1 corpus (the host's binutils)
v3bins=()	# the v3 corpus (sid's)
sid=		# sid's binutils, once they are had

# ---- the corpus ---------------------------------------------------------------

# corpus_matrix PREFIX LIST [CC-ARG...]: cases.c and exc.cc at every -O and
# frame-pointer choice, as PREFIXc-O2-keep etc., onto the array LIST.
corpus_matrix() {
	local prefix=$1 opt fp fpf b
	local -n list=$2
	shift 2
	for opt in O0 O2 O3 Os; do
		for fp in omit keep; do
			if [ $fp = omit ]; then fpf=-fomit-frame-pointer; else fpf=-fno-omit-frame-pointer; fi
			b=$out/corpus/${prefix}c-$opt-$fp
			gcc "$@" -$opt $fpf -Wa,--gsframe -o "$b" corpus/cases.c -lm 2>>"$out/corpus.log" &&
				list+=("$b") || fail "corpus-build/${prefix}c-$opt-$fp" "gcc${1:+ -B sid} failed"
			b=$out/corpus/${prefix}cxx-$opt-$fp
			g++ "$@" -$opt $fpf -Wa,--gsframe -o "$b" corpus/exc.cc 2>>"$out/corpus.log" &&
				list+=("$b") || fail "corpus-build/${prefix}cxx-$opt-$fp" "g++${1:+ -B sid} failed"
		done
	done
}

# The v1 corpus: the matrix, and a real program: the checker itself, built
# with SFrame (PLT-heavy: libelf, libdw, libsframe, libc).
build_v1_corpus() {
	if want 'c-*' 'cxx-*' 'corpus-build/*' dump-vs-objdump check-cli lookup-cli \
		'dump-lookup-v*'; then
		corpus_matrix "" bins
	fi
	want 'sfcheck-sframe/*' 'corpus-build/*' dump-vs-objdump check-cli || return 0
	if make -s OUT="$out" "$out/corpus/sfcheck-sframe" >>"$out/corpus.log" 2>&1; then
		bins+=("$out/corpus/sfcheck-sframe")
	else
		fail corpus-build/sfcheck-sframe "gcc failed"
	fi
}

# The v3 corpus, by sid's as and ld (SFrame v3 with --gsframe): the matrix,
# plus v3 only shapes (flex DRAP FDE, signal bit) and the PLT sections:
# .plt.sec (IBT) and .plt.got, whose ld 2.47 rule .eh_frame contradicts (see
# sf_plt_entry() in module/sframe_find.c).
build_v3_corpus() {
	local v tag b src

	echo "# sframe/v3: $(cat "${USTACK_CACHE:-/var/cache/ustack}/sid-binutils/version")"
	corpus_matrix v3- v3bins -B"$sid"
	for v in "shapes-O2:-O2" "shapes-O0:-O0" "ibt-O2:-O2 -fcf-protection -Wl,-z,ibtplt" \
		"noplt-O2:-O2 -fno-plt" "ibt-noplt-O2:-O2 -fcf-protection -fno-plt -Wl,-z,ibtplt"; do
		tag=${v%%:*}
		b=$out/corpus/v3-$tag
		src=corpus/v3.c
		case $tag in ibt* | noplt*) src=corpus/cases.c ;; esac
		# shellcheck disable=SC2086
		gcc -B"$sid" ${v#*:} -Wa,--gsframe -o "$b" $src -lm 2>>"$out/corpus.log" &&
			v3bins+=("$b") || fail "corpus-build/v3-$tag" "gcc -B sid failed"
	done
}

# check_corpus FILE...: sfcheck, every oracle over every PC of each
# selected file, two files at a time (the machine is shared); their
# PASS/FAIL lines in order.
check_corpus() {
	local checked=() b

	for b in "$@"; do want "$(basename "$b")/*" && checked+=("$b"); done
	printf '%s\n' "${checked[@]}" | grep . |
		xargs -r -P 2 -I{} sh -c './build/sfcheck "$(basename {})" {} >"{}.out" 2>"{}.err"'
	for b in "${checked[@]}"; do
		cat "$b.out"
		if grep -q . "$b.err"; then
			echo "# $(basename "$b"): first differences:"
			head -n 5 "$b.err" | sed 's/^/#   /'
		fi
	done
}

# ---- v3: what sid's tools say of their own output ---------------------------

# Every v3 file has PT_GNU_SFRAME and a v3 section, by sid's own tools.
v3_phdr_version() {
	local bad=0 b

	for b in "${v3bins[@]}"; do
		if ! "$sid/readelf" -lW "$b" | grep -q GNU_SFRAME ||
			! "$sid/objdump" --sframe "$b" | grep -q 'Version: SFRAME_VERSION_3'; then
			bad=$((bad + 1))
			echo "# $(basename "$b"): no PT_GNU_SFRAME or not v3"
		fi
	done
	if [ $bad = 0 ] && [ ${#v3bins[@]} -gt 0 ]; then
		pass v3-phdr-version
	else
		fail v3-phdr-version "$bad of ${#v3bins[@]} files"
	fi
}

# Flex and signal FDEs must really be there, or the shapes test nothing.
v3_shapes_present() {
	"$sid/objdump" --sframe "$out/corpus/v3-shapes-O2" | grep -q 'attr = "F"' &&
		"$sid/objdump" --sframe "$out/corpus/v3-shapes-O2" | grep -q 'attr = "S"' ||
		{ echo "no flex or no signal FDE in v3-shapes-O2"; return 1; }
}

# ---- dump and lookup (the CLI) ------------------------------------------------

# dump_vs_objdump NAME OBJDUMP FILE...: sframe-register dump prints what
# OBJDUMP --sframe prints, past the first line (the file name).
dump_vs_objdump() {
	local name=$1 objdump=$2 bad=0 b
	shift 2
	for b in "$@"; do
		if ! diff <("$objdump" --sframe "$b" | tail -n +2) <("$tool" dump "$b" | tail -n +2) \
			>"$b.dumpdiff"; then
			bad=$((bad + 1))
			echo "# dump differs for $b: $(head -n 4 "$b.dumpdiff" | tr '\n' ' ')"
		fi
	done
	if [ $bad = 0 ] && [ $# -gt 0 ]; then
		pass "$name"
	else
		fail "$name" "$bad of $# files differ"
	fi
}

# `sframe-register check` (the generator's libdw CFI reader, another
# .eh_frame oracle) must find no mismatch in any corpus file.  Not
# v3-shapes-*: the generator's CFI reader calls DRAP and signal frames
# inexpressible (sfcheck's ehframe check covers them).
check_cli() {
	local bad=0 b

	for b in "${bins[@]}" "${v3bins[@]}"; do
		case $b in */v3-shapes-*) continue ;; esac
		if ! "$tool" check "$b" >"$b.check" 2>&1 || ! grep -q ' 0 mismatch' "$b.check"; then
			bad=$((bad + 1))
			echo "# check: $(tail -n 1 "$b.check")"
		fi
	done
	if [ $bad = 0 ]; then
		pass check-cli
	else
		fail check-cli "$bad of $((${#bins[@]} + ${#v3bins[@]})) files"
	fi
}

# lookup: a function built here with known CFI (fp kept, -O0).
lookup_cli() {
	local b=$out/corpus/c-O0-keep f plt got want

	f=$(nm "$b" | awk '$3 == "recurse" {print $1}')
	plt=$(readelf -SW "$b" | awk '$2 == ".plt" {print $4}')
	[ -n "$f" ] && [ -n "$plt" ] || { echo "no symbol recurse or .plt in $b"; return 1; }
	got=$("$tool" lookup "$b" "$f" "$(printf %x $((0x$f + 1)))" \
		"$(printf %x $((0x$f + 4)))" "$(printf %x $((0x$plt + 0x10)))" \
		"$(printf %x $((0x$plt + 0x1b)))" 0 2>&1)
	want=$(printf '%s\n' \
		"0x$(printf %x $((0x$f))) cfa=sp+8 fp=u ra=c-8" \
		"0x$(printf %x $((0x$f + 1))) cfa=sp+16 fp=c-16 ra=c-8" \
		"0x$(printf %x $((0x$f + 4))) cfa=fp+16 fp=c-16 ra=c-8" \
		"0x$(printf %x $((0x$plt + 0x10))) cfa=sp+8 fp=u ra=c-8" \
		"0x$(printf %x $((0x$plt + 0x1b))) cfa=sp+16 fp=u ra=c-8" \
		"0x0 none")
	[ "$got" = "$want" ] ||
		{ echo "got '$(echo "$got" | tr '\n' '|')' want '$(echo "$want" | tr '\n' '|')'"; return 1; }
}

# dump_lookup VERSION: a vVERSION file made by `gen --version` (the
# .eh_frame->SFrame generator) dumps, and gives the same lookup answers as
# gas's v1, PC by PC, over a whole function.
dump_lookup() {
	local v=$1 b=$out/corpus/c-O2-omit g=$out/corpus/gen-v$1 f sz pcs want got

	read -r f sz < <(nm -S "$b" | awk '$4 == "main" {print $1, $2}')
	pcs=$(for ((a = 0x$f; a < 0x$f + 0x$sz; a++)); do printf '%x ' $a; done)
	# shellcheck disable=SC2086
	want=$("$tool" lookup "$b" $pcs 2>&1)
	"$tool" gen "$b" -o "$g" --version "$v" >/dev/null 2>&1 ||
		{ echo "gen --version $v failed"; return 1; }
	# shellcheck disable=SC2086
	got=$("$tool" lookup "$g" $pcs 2>&1)
	"$tool" dump "$g" | grep -q "Version: SFRAME_VERSION_$v" && [ "$got" = "$want" ] &&
		[ -n "$want" ] ||
		{ diff <(echo "$want") <(echo "$got") | head -n 3 | tr '\n' ' '; echo; return 1; }
}

# The CLI's tests, each against the corpus.
cli_tests() {
	local n

	if ! make -s -C "$root/tools/sframe-register" sframe-register >"$out/tool.log" 2>&1; then
		for n in dump-vs-objdump dump-vs-objdump-v3 check-cli lookup-cli dump-lookup-v2 \
			dump-lookup-v3; do
			want "$n" && fail "$n" "sframe-register does not build"
		done
		return
	fi
	want dump-vs-objdump && dump_vs_objdump dump-vs-objdump objdump "${bins[@]}"
	if [ -n "$sid" ] && want dump-vs-objdump-v3; then
		dump_vs_objdump dump-vs-objdump-v3 "$sid/objdump" "${v3bins[@]}"
	fi
	want check-cli && check_cli
	run_test lookup-cli lookup_cli
	run_test dump-lookup-v2 dump_lookup 2
	run_test dump-lookup-v3 dump_lookup 3
}

# ---- the run ----------------------------------------------------------------

if ! make -s OUT="$out" all >"$out/make.log" 2>&1; then
	fail build "$(tail -n 3 "$out/make.log" | tr '\n' ' ')"
	exit 0
fi

build_v1_corpus
check_corpus "${bins[@]}"

# libsframe 2.40 reads v1 only: its check is left out for the v3 files, the
# others all run.
if ! want 'v3-*' 'corpus-build/*' dump-vs-objdump-v3 check-cli; then
	:
elif [ "${USTACK_NO_SID:-0}" = 1 ]; then
	for n in v3-phdr-version v3-shapes-present dump-vs-objdump-v3; do
		want "$n" && skip "$n" "USTACK_NO_SID=1 (and the v3 corpus's checks)"
	done
elif ! sid=$(bash "$root/scripts/sid-binutils.sh" 2>"$out/sid.log"); then
	sid=
	fail v3-toolchain "Debian sid's binutils unavailable: $(tail -n 2 "$out/sid.log" | tr '\n' ' ')"
else
	build_v3_corpus
	want v3-phdr-version && v3_phdr_version
	run_test v3-shapes-present v3_shapes_present
	check_corpus "${v3bins[@]}"
	echo "# sframe/v3: libsframe check skipped (the host's libsframe 2.40 reads v1 only)"
fi

if want dump-vs-objdump dump-vs-objdump-v3 check-cli lookup-cli 'dump-lookup-v*'; then
	cli_tests
fi

if want 'unit-*'; then "./$out/unit" 2>&1 || true; fi
exit 0
