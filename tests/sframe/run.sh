#!/usr/bin/env bash
# tests/sframe: the SFrame decoder/step core (module/ustack_sframe.c).
#  corpus   C and C++ programs built here with gcc -Wa,--gsframe (v1) at
#           -O0/-O2/-O3/-Os, with and without frame pointers; every PC checked
#           by sfcheck against .eh_frame (libdw), libsframe 2.40 and the
#           section re-encoded as v1/v2/v3 (with and without PCREL)
#  v3       the same cases built by Debian sid's binutils (scripts/sid-binutils.sh,
#           SFrame v3, PT_GNU_SFRAME), plus DRAP/signal shapes and the PLT
#           sections (.plt.sec, .plt.got): sfcheck as above but libsframe
#           (2.40 reads v1 only); FAIL when sid's binutils cannot be had,
#           unless USTACK_NO_SID=1
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

if ! make -s OUT="$out" all >"$out/make.log" 2>&1; then
	echo "FAIL: sframe/build: $(tail -n 3 "$out/make.log" | tr '\n' ' ')"
	exit 0
fi

# ---- corpus ---------------------------------------------------------------
# Every test but the unit tests reads the corpus.
bins=()
want 'c-*' 'cxx-*' 'sfcheck-sframe/*' 'corpus-build/*' dump-vs-objdump check-cli \
	lookup-cli 'dump-lookup-v*' || opts=
for opt in ${opts-O0 O2 O3 Os}; do
	for fp in omit keep; do
		if [ $fp = omit ]; then fpf=-fomit-frame-pointer; else fpf=-fno-omit-frame-pointer; fi
		b=$out/corpus/c-$opt-$fp
		gcc -$opt $fpf -Wa,--gsframe -o "$b" corpus/cases.c -lm 2>>"$out/corpus.log" &&
			bins+=("$b") || echo "FAIL: sframe/corpus-build/c-$opt-$fp: gcc failed"
		b=$out/corpus/cxx-$opt-$fp
		g++ -$opt $fpf -Wa,--gsframe -o "$b" corpus/exc.cc 2>>"$out/corpus.log" &&
			bins+=("$b") || echo "FAIL: sframe/corpus-build/cxx-$opt-$fp: g++ failed"
	done
done
# A real program: the checker itself, built with SFrame (PLT-heavy: libelf,
# libdw, libsframe, libc).
b=$out/corpus/sfcheck-sframe
if ! want 'sfcheck-sframe/*' 'corpus-build/*' dump-vs-objdump check-cli; then
	:
elif gcc -O2 -Wa,--gsframe -std=gnu11 -D_GNU_SOURCE -I"$root/include" -I"$root/module" \
	-I"$root/tools/lib" -o "$b" sfcheck.c ls_oracle.c \
	"$root/module/ustack_sframe.c" "$root/tools/lib/sframe_encode.c" \
	"$root/tools/lib/elf_sframe.c" "$root/tools/lib/elf_object.c" -lelf -ldw -lsframe 2>>"$out/corpus.log"; then
	bins+=("$b")
else
	echo "FAIL: sframe/corpus-build/sfcheck-sframe: gcc failed"
fi

# Two at a time: the machine is shared.
checked=()
for b in "${bins[@]}"; do want "$(basename "$b")/*" && checked+=("$b"); done
printf '%s\n' "${checked[@]}" | grep . |
	xargs -r -P 2 -I{} sh -c './build/sfcheck "$(basename {})" {} >"{}.out" 2>"{}.err"'
for b in "${checked[@]}"; do
	cat "$b.out"
	if grep -q . "$b.err"; then
		echo "# $(basename "$b"): first differences:"
		head -n 5 "$b.err" | sed 's/^/#   /'
	fi
done

# ---- v3 corpus: Debian sid's binutils (scripts/sid-binutils.sh) -------------
# The same cases built by sid's as and ld (SFrame v3 with --gsframe), plus v3
# only shapes (flex DRAP FDE, signal bit) and the PLT sections: .plt.sec
# (IBT) and .plt.got, whose ld 2.47 rule .eh_frame contradicts (see
# sf_plt_entry() in module/ustack_sframe.c). libsframe 2.40 reads v1 only:
# the libsframe check is skipped for these, the others all run.
v3bins=()
sid=
if [ "${USTACK_NO_SID:-0}" = 1 ]; then
	echo "# sframe/v3: skipped (USTACK_NO_SID=1)"
elif ! sid=$(bash "$root/scripts/sid-binutils.sh" 2>"$out/sid.log"); then
	sid=
	echo "FAIL: sframe/v3-toolchain: Debian sid's binutils unavailable: $(tail -n 2 "$out/sid.log" | tr '\n' ' ')"
else
	echo "# sframe/v3: $(cat "${USTACK_CACHE:-/var/cache/ustack}/sid-binutils/version")"
	for opt in O0 O2 O3 Os; do
		for fp in omit keep; do
			if [ $fp = omit ]; then fpf=-fomit-frame-pointer; else fpf=-fno-omit-frame-pointer; fi
			b=$out/corpus/v3-c-$opt-$fp
			gcc -B"$sid" -$opt $fpf -Wa,--gsframe -o "$b" corpus/cases.c -lm 2>>"$out/corpus.log" &&
				v3bins+=("$b") || echo "FAIL: sframe/corpus-build/v3-c-$opt-$fp: gcc -B sid failed"
			b=$out/corpus/v3-cxx-$opt-$fp
			g++ -B"$sid" -$opt $fpf -Wa,--gsframe -o "$b" corpus/exc.cc 2>>"$out/corpus.log" &&
				v3bins+=("$b") || echo "FAIL: sframe/corpus-build/v3-cxx-$opt-$fp: g++ -B sid failed"
		done
	done
	for v in "shapes-O2:-O2" "shapes-O0:-O0" "ibt-O2:-O2 -fcf-protection -Wl,-z,ibtplt" \
		"noplt-O2:-O2 -fno-plt" "ibt-noplt-O2:-O2 -fcf-protection -fno-plt -Wl,-z,ibtplt"; do
		tag=${v%%:*}
		b=$out/corpus/v3-$tag
		src=corpus/v3.c
		case $tag in ibt* | noplt*) src=corpus/cases.c ;; esac
		# shellcheck disable=SC2086
		gcc -B"$sid" ${v#*:} -Wa,--gsframe -o "$b" $src -lm 2>>"$out/corpus.log" &&
			v3bins+=("$b") || echo "FAIL: sframe/corpus-build/v3-$tag: gcc -B sid failed"
	done
	# Every one has PT_GNU_SFRAME and a v3 section, by sid's own tools.
	bad=0
	for b in "${v3bins[@]}"; do
		if ! "$sid/readelf" -lW "$b" | grep -q GNU_SFRAME ||
			! "$sid/objdump" --sframe "$b" | grep -q 'Version: SFRAME_VERSION_3'; then
			bad=$((bad + 1))
			echo "# $(basename "$b"): no PT_GNU_SFRAME or not v3"
		fi
	done
	if [ $bad = 0 ] && [ ${#v3bins[@]} -gt 0 ]; then echo "PASS: sframe/v3-phdr-version"; else
		echo "FAIL: sframe/v3-phdr-version: $bad of ${#v3bins[@]} files"; fi
	# Flex and signal FDEs must really be there, or the shapes test nothing.
	if "$sid/objdump" --sframe "$out/corpus/v3-shapes-O2" | grep -q 'attr = "F"' &&
		"$sid/objdump" --sframe "$out/corpus/v3-shapes-O2" | grep -q 'attr = "S"'; then
		echo "PASS: sframe/v3-shapes-present"
	else
		echo "FAIL: sframe/v3-shapes-present: no flex or no signal FDE in v3-shapes-O2"
	fi
	printf '%s\n' "${v3bins[@]}" |
		xargs -P 2 -I{} sh -c './build/sfcheck "$(basename {})" {} >"{}.out" 2>"{}.err"'
	for b in "${v3bins[@]}"; do
		cat "$b.out"
		if grep -q . "$b.err"; then
			echo "# $(basename "$b"): first differences:"
			head -n 5 "$b.err" | sed 's/^/#   /'
		fi
	done
	echo "# sframe/v3: libsframe check skipped (the host's libsframe 2.40 reads v1 only)"
fi

# ---- dump and lookup (the CLI) ----------------------------------------------
if ! want dump-vs-objdump check-cli lookup-cli 'dump-lookup-v*'; then
	:
elif make -s -C "$root/tools/sframe-register" sframe-register >"$out/tool.log" 2>&1; then
	tool=$root/tools/sframe-register/sframe-register
	bad=0
	want dump-vs-objdump || bad=skip
	[ $bad = skip ] || for b in "${bins[@]}"; do
		if ! diff <(objdump --sframe "$b" | tail -n +2) <("$tool" dump "$b" | tail -n +2) \
			>"$b.dumpdiff"; then
			bad=$((bad + 1))
			echo "# dump differs for $b: $(head -n 4 "$b.dumpdiff" | tr '\n' ' ')"
		fi
	done
	if [ $bad = skip ]; then :
	elif [ $bad = 0 ]; then echo "PASS: sframe/dump-vs-objdump"; else
		echo "FAIL: sframe/dump-vs-objdump: $bad of ${#bins[@]} files differ"; fi
	if [ -n "$sid" ]; then
		bad=0
		for b in "${v3bins[@]}"; do
			if ! diff <("$sid/objdump" --sframe "$b" | tail -n +2) \
				<("$tool" dump "$b" | tail -n +2) >"$b.dumpdiff"; then
				bad=$((bad + 1))
				echo "# dump differs for $b: $(head -n 4 "$b.dumpdiff" | tr '\n' ' ')"
			fi
		done
		if [ $bad = 0 ] && [ ${#v3bins[@]} -gt 0 ]; then echo "PASS: sframe/dump-vs-objdump-v3"; else
			echo "FAIL: sframe/dump-vs-objdump-v3: $bad of ${#v3bins[@]} files differ"; fi
	fi

	# `sframe-register check` (the generator's libdw CFI reader, another
	# .eh_frame oracle) must find no mismatch in any corpus file.
	bad=0
	want check-cli || bad=skip
	# Not v3-shapes-*: the generator's CFI reader calls DRAP and signal
	# frames inexpressible (sfcheck's ehframe check covers them).
	[ $bad = skip ] || for b in "${bins[@]}" "${v3bins[@]}"; do
		case $b in */v3-shapes-*) continue ;; esac
		if ! "$tool" check "$b" >"$b.check" 2>&1 || ! grep -q ' 0 mismatch' "$b.check"; then
			bad=$((bad + 1))
			echo "# check: $(tail -n 1 "$b.check")"
		fi
	done
	if [ $bad = skip ]; then :
	elif [ $bad = 0 ]; then echo "PASS: sframe/check-cli"; else
		echo "FAIL: sframe/check-cli: $bad of $((${#bins[@]} + ${#v3bins[@]})) files"; fi

	# lookup: a function built here with known CFI (fp kept, -O0).
	b=$out/corpus/c-O0-keep
	f=$(nm "$b" | awk '$3 == "recurse" {print $1}')
	plt=$(readelf -SW "$b" | awk '$2 == ".plt" {print $4}')
	if ! want lookup-cli; then
		:
	elif [ -n "$f" ] && [ -n "$plt" ]; then
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
		if [ "$got" = "$want" ]; then echo "PASS: sframe/lookup-cli"; else
			echo "FAIL: sframe/lookup-cli: got '$(echo "$got" | tr '\n' '|')' want '$(echo "$want" | tr '\n' '|')'"; fi
	else
		echo "FAIL: sframe/lookup-cli: no symbol recurse or .plt in $b"
	fi

	# v2/v3 files: `gen --version N` (the .eh_frame->SFrame generator)
	# output must dump, and give the same lookup answers as gas's v1, PC by
	# PC, over a whole function.
	b=$out/corpus/c-O2-omit
	read -r f sz < <(nm -S "$b" | awk '$4 == "main" {print $1, $2}')
	pcs=$(for ((a = 0x$f; a < 0x$f + 0x$sz; a++)); do printf '%x ' $a; done)
	want=$("$tool" lookup "$b" $pcs 2>&1)
	for v in 2 3; do
		want "dump-lookup-v$v" || continue
		g=$out/corpus/gen-v$v
		if ! "$tool" gen "$b" -o "$g" --version $v >/dev/null 2>&1; then
			echo "FAIL: sframe/dump-lookup-v$v: gen --version $v failed"
			continue
		fi
		got=$("$tool" lookup "$g" $pcs 2>&1)
		if "$tool" dump "$g" | grep -q "Version: SFRAME_VERSION_$v" &&
			[ "$got" = "$want" ] && [ -n "$want" ]; then
			echo "PASS: sframe/dump-lookup-v$v"
		else
			echo "FAIL: sframe/dump-lookup-v$v: $(diff <(echo "$want") <(echo "$got") | head -n 3 | tr '\n' ' ')"
		fi
	done
else
	echo "FAIL: sframe/dump-vs-objdump: sframe-register does not build"
	echo "FAIL: sframe/lookup-cli: sframe-register does not build"
fi

# ---- unit: hand-made and malformed sections, step, walk ---------------------
if want 'unit-*'; then "./$out/unit" 2>&1 || true; fi
