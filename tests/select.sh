# tests/select.sh: tests one at a time, for every host area.  Sourced by
# tests/<area>/run.sh with the area's name and its arguments:
#     . "$top/tests/select.sh" AREA "$@"
# `bash tests/AREA/run.sh NAME...` runs only the tests named (no NAME: all).
# A test's NAME is what follows "AREA/" in its PASS:/FAIL: line; a NAME may
# be a shell pattern ('join-*', 'c-O2-*/*').  Only the selected tests'
# results are printed; a NAME that no test matched is a failure
# ("FAIL: AREA/NAME: no such test").  An area skips the work of the tests
# that were not asked for (`want`), except what the selected ones need.
# With NAMEs, a bare `wait` would also wait for the results filter: wait
# for the PIDs you started.

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
			if [[ $line =~ ^(PASS|FAIL):\ ${SEL_AREA}/([^:\ ]+) ]]; then
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
