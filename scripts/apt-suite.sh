#!/usr/bin/env bash
# apt-suite.sh SUITE [ARCH]: a private apt for one Debian suite (trixie,
# sid, ...) that this Debian 12 host's own apt does not list, or for a
# foreign architecture's packages (arm64: the cross builds' kernel headers)
# of any suite, the host's too: ARCH is listed beside amd64, in a state of
# its own (USTACK_CACHE/apt/SUITE+ARCH), so `apt-get download pkg:ARCH`
# works while the host's apt and the amd64-only state stay as they are.  Prints the path of its
# apt.conf: `APT_CONFIG=$(scripts/apt-suite.sh sid) apt-cache policy gcc-16`
# then asks that suite alone (its own sources, lists, caches and an empty
# status under USTACK_CACHE/apt/SUITE), so the system's apt state is never
# touched and nothing is installed.
#
# The mirror is the first Debian archive this machine's apt uses (from
# /etc/apt/sources.list{,.d}); a suite with a security suite (trixie) gets
# it from the security archive this machine uses too.  The lists are
# fetched again when they are older than 12 hours (USTACK_APT_MAXAGE,
# minutes), or when the lists are missing.  Everything else goes to stderr.
set -euo pipefail

suite=${1:?usage: apt-suite.sh SUITE [ARCH]}
arch=${2:-}
case $suite in
*[!a-z0-9-]* | "") echo "apt-suite: bad suite name '$suite'" >&2; exit 2 ;;
esac
case $arch in
*[!a-z0-9]* | amd64) echo "apt-suite: bad foreign architecture '$arch'" >&2; exit 2 ;;
esac
aptd=${USTACK_CACHE:-/var/cache/ustack}/apt/$suite${arch:++$arch}
maxage=${USTACK_APT_MAXAGE:-720}

log() { echo "apt-suite: $*" >&2; }

# The first archive URI of this machine's apt whose path ends in /$1/
# (debian or debian-security), from one-line or deb822 sources.
mirror_of() {
	local f m
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		m=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) print $i }' "$f" |
			grep -m1 "/$1/\?\$" || true)
		[ -n "$m" ] && { echo "${m%/}"; return; }
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		m=$(awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f" |
			grep -m1 "/$1/\?\$" || true)
		[ -n "$m" ] && { echo "${m%/}"; return; }
	done
}

mkdir -p "$aptd"
exec 9>"$aptd/.lock"
flock 9

if [ -s "$aptd/apt.conf" ] && [ -f "$aptd/.updated" ] &&
   [ -z "$(find "$aptd/.updated" -mmin +"$maxage")" ]; then
	echo "$aptd/apt.conf"
	exit 0
fi

mirror=$(mirror_of debian)
if [ -z "$mirror" ]; then
	log "no Debian mirror found in /etc/apt/sources.list{,.d}"
	exit 1
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$aptd/etc/apt.conf.d" "$aptd/etc/sources.list.d" "$aptd/etc/preferences.d" \
	"$aptd/lists/partial" "$aptd/cache/archives/partial"
[ -f "$aptd/status" ] || : >"$aptd/status"
{
	echo "deb [signed-by=$keyring] $mirror $suite main"
	case $suite in
	sid | unstable | experimental | *-security | *-backports | *-updates) ;;
	*)
		sec=$(mirror_of debian-security)
		[ -n "$sec" ] && echo "deb [signed-by=$keyring] $sec $suite-security main"
		echo "deb [signed-by=$keyring] $mirror $suite-updates main"
		;;
	esac
} >"$aptd/etc/sources.list"
cat >"$aptd/apt.conf" <<CONF
Dir::Etc "$aptd/etc";
Dir::Etc::main "/dev/null";
Dir::Etc::parts "$aptd/etc/apt.conf.d";
Dir::Etc::sourcelist "$aptd/etc/sources.list";
Dir::Etc::sourceparts "$aptd/etc/sources.list.d";
Dir::Etc::preferences "/dev/null";
Dir::Etc::preferencesparts "$aptd/etc/preferences.d";
Dir::State "$aptd";
Dir::State::lists "$aptd/lists";
Dir::State::status "$aptd/status";
Dir::Cache "$aptd/cache";
Dir::Cache::archives "$aptd/cache/archives";
APT::Architecture "amd64";
APT::Architectures { "amd64";${arch:+ \"$arch\";} };
Acquire::Languages "none";
Acquire::Check-Valid-Until "false";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
CONF
# Check-Valid-Until off: a mirror that serves a frozen snapshot (as this
# machine's may) has Release files past their Valid-Until date; the
# signatures are still checked against Debian's archive keyring.

log "apt-get update ($suite from $mirror, private state in $aptd)"
if ! APT_CONFIG=$aptd/apt.conf apt-get -q update >"$aptd/update.log" 2>&1 ||
   grep -q '^[EW]: ' "$aptd/update.log"; then
	# a missing -updates or -security suite is not fatal; the main one is
	if ! ls "$aptd/lists/"*"_dists_${suite}_main_binary-amd64_Packages"* >/dev/null 2>&1; then
		log "apt-get update failed: $(grep -m3 '^[EW]: ' "$aptd/update.log" | tr '\n' ' ')"
		exit 1
	fi
fi
touch "$aptd/.updated"
echo "$aptd/apt.conf"
