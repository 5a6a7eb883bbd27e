# Sourced by the scripts tests/ustackd/run.sh runs in a PID namespace of
# their own (in_pidns), the daemon's $UD set:
# key FILE: its "dev ino", as the stand-in's "add" lines name it
key() { stat -L -c '%d %i' "$1"; }
# ready LOG: wait up to 60 s for `ustackd: ready` in LOG, while ustackd runs
ready() {
	for _ in $(seq 600); do
		grep -q '^ustackd: ready$' "$1" && return 0
		kill -0 $UD 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# waitfor TENTHS CMD...: until CMD succeeds, at most TENTHS tenths of a second
waitfor() {
	local n=$1; shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
