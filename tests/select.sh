# tests/select.sh: tests one at a time, for every host area.  Sourced by
# tests/<area>/run.sh with the area's name and its arguments:
#     . "$top/tests/select.sh" AREA "$@"
# `bash tests/AREA/run.sh NAME...` runs only the tests named (no NAME: all).
# A test's NAME is what follows "AREA/" in its PASS:/FAIL:/SKIP: line; a
# NAME may be a shell pattern ('join-*', 'c-O2-*/*').  Only the selected
# tests' results are printed; a NAME that no test matched is a failure
# ("FAIL: AREA/NAME: no such test").  An area skips the work of the tests
# that were not asked for (`want`), except what the selected ones need.
# With NAMEs, a bare `wait` would also wait for the results filter: wait
# for the PIDs you started.
#
# Results: a test prints its own line, with these helpers (a C checker
# run by an area prints the same lines itself):
#     pass NAME            PASS: AREA/NAME
#     fail NAME REASON     FAIL: AREA/NAME: REASON
#     skip NAME REASON     SKIP: AREA/NAME: REASON
#     run_test NAME FUNCTION [ARG...]
#                          if NAME is selected: FUNCTION (in a subshell),
#                          PASS if it returns 0, else FAIL with the last
#                          three lines it printed as the reason
# A skip is for a test this run was told to leave out (USTACK_NO_SID=1),
# never for one that was tried and broke, nor for one whose tool or
# privilege is missing where make check needs it: that is a FAIL
# (`scripts/deps.sh check` installs what the tests need).  A skip is not a
# pass: scripts/check.sh counts skips on their own, names them at the end
# and fails on FAIL lines only, so a test that printed a FAIL has failed
# whatever else it printed.

SEL_AREA=$1
shift
SEL_NAMES=("$@")
SEL_ATEXIT=()

# on_exit CMD: run CMD when the script ends (instead of `trap CMD EXIT`,
# which the selection's own clean-up needs).
on_exit() { SEL_ATEXIT+=("$1"); }
sel_exit() {
	local c
	for c in "${SEL_ATEXIT[@]}"; do eval "$c"; done
	# the results filter, if any, prints its last lines before the end
	if [ -n "${SEL_PID:-}" ]; then
		exec >&-
		wait "$SEL_PID" 2>/dev/null
	fi
}
trap sel_exit EXIT

# The results (above): one line each, the only lines make check counts.
pass() { echo "PASS: $SEL_AREA/$1"; }
fail() { echo "FAIL: $SEL_AREA/$1: ${2-}"; }
skip() { echo "SKIP: $SEL_AREA/$1: ${2-}"; }
run_test() {
	# (sel_ names: the test function sees these locals, and an area's
	# globals such as $out must not be hidden from it)
	local sel_name=$1 sel_text sel_t0=$SECONDS
	shift
	want "$sel_name" || return 0
	if sel_text=$("$@" 2>&1); then
		pass "$sel_name"
	else
		fail "$sel_name" "$(printf '%s' "$sel_text" | tail -n 3 | tr '\n' ' ')"
	fi
	# for the log (make check counts only the lines above)
	echo "   $SEL_AREA/$sel_name took $((SECONDS - sel_t0)) s"
}

# want NAME...: true if a test named NAME (itself possibly a pattern, for
# a group of tests made by one step) is selected.
want() {
	local n p
	[ ${#SEL_NAMES[@]} = 0 ] && return 0
	for n in "$@"; do
		for p in "${SEL_NAMES[@]}"; do
			# shellcheck disable=SC2053
			[[ $n == $p || $p == $n ]] && return 0
		done
	done
	return 1
}

if [ ${#SEL_NAMES[@]} -gt 0 ]; then
	# The filter sees every result: it drops those not asked for and names
	# the NAMEs that matched nothing at the end.
	sel_filter() {
		local line name p matched=() i hit
		while IFS= read -r line; do
			if [[ $line =~ ^(PASS|FAIL|SKIP):\ ${SEL_AREA}/([^:\ ]+) ]]; then
				name=${BASH_REMATCH[2]} hit=0
				for i in "${!SEL_NAMES[@]}"; do
					p=${SEL_NAMES[$i]}
					# shellcheck disable=SC2053
					[[ $name == $p ]] && matched[i]=1 hit=1
				done
				[ $hit = 0 ] || printf '%s\n' "$line"
			else
				printf '%s\n' "$line"
			fi
		done
		for i in "${!SEL_NAMES[@]}"; do
			[ -n "${matched[i]:-}" ] ||
				echo "FAIL: $SEL_AREA/${SEL_NAMES[$i]}: no such test"
		done
	}
	exec {sel_out}>&1
	exec > >(sel_filter >&$sel_out)
	SEL_PID=$!
fi
