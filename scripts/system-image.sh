#!/usr/bin/env bash
# system-image.sh RELEASE: make the whole Debian system RELEASE (bookworm:
# Debian 12 and its 6.1 kernel; trixie: Debian 13 and its 6.12) ready as a
# disk image, and describe it.  Prints shell assignments: IMAGE (a raw ext4
# file system, the guest's /), VMLINUZ and INITRD (its own kernel and
# initramfs, for QEMU's -kernel/-initrd), KREL (uname -r) and KREL2 (the
# second kernel, whose packages the image holds to install offline).
#
# Built by Debian's own tools from the Debian mirror this machine's apt
# uses (USTACK_MIRROR, USTACK_SECURITY_MIRROR override it), nothing from
# anywhere else: mmdebstrap into a directory, mkfs.ext4 -d from it.  Cached
# under USTACK_CACHE (/var/cache/ustack/systems/<release>-<hash>/, the hash
# of this script: a change here builds the image anew), like the kernels;
# nothing of this machine's own system is touched (mmdebstrap keeps its
# maintainer scripts in the image's root and starts no service).  The
# guest boots with no network, so the image keeps apt's lists and, in
# apt's archive cache, the packages a user's machine would fetch for
# ustack's packages and not have yet (dwarves, libprotobuf-c1, ...) and a
# second kernel (image and headers): `apt install ./ustack-*.deb` and a
# kernel upgrade then work offline, and only with the dependencies the
# packages declare.  A boot never writes to IMAGE: scripts/system-test.sh
# boots a copy-on-write overlay of it.
# (One compound command, read whole before it runs: editing the file
# meanwhile cannot change what a running build does.)
{
set -euo pipefail
trap 'echo "system-image.sh: failed at line $LINENO" >&2' ERR
here=$(cd "$(dirname "$0")" && pwd)
release=${1:?usage: system-image.sh bookworm|trixie}
cache=${USTACK_CACHE:-/var/cache/ustack}

# The services a Debian machine runs that were never built with ustack in
# mind, and what a user's machine has for DKMS: its kernel and headers,
# dkms, build-essential.  systemd-container: the container variant;
# kexec-tools: the kernel upgrade's boot into the new kernel.
pkgs=(systemd-sysv udev dbus kmod initramfs-tools linux-image-amd64
      linux-headers-amd64 dkms build-essential apparmor systemd-container
      nginx postgresql python3 cron openssh-server curl procps psmisc
      e2fsprogs util-linux man-db kexec-tools)
# What the guest installs offline: ustack's dependencies that a stock
# system lacks (named as in bookworm; trixie's t64 libraries provide these
# names) and a second kernel of the release: bookworm's 6.12 (its headers
# build modules with BTF: pahole), trixie's cloud flavour.
offline=(dwarves libprotobuf-c1 libdw1 libelf1 zlib1g)
case $release in
bookworm)
	suites=(bookworm bookworm-updates)
	security=bookworm-security
	offline+=(linux-image-6.12-amd64 linux-headers-6.12-amd64) ;;
trixie)
	suites=(trixie trixie-updates)
	security=trixie-security
	offline+=(linux-image-cloud-amd64 linux-headers-cloud-amd64) ;;
*)	echo "system-image.sh: unknown release '$release' (bookworm, trixie)" >&2; exit 2 ;;
esac

# The mirror this machine's apt uses (deb822 or one-line sources).
host_uri() {	# host_uri PATH-SUFFIX: the first URI of apt's sources ending in it
	cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n -e 's/^URIs: *//p' -e 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' |
		tr ' ' '\n' | grep -E "^https?://[^ ]*/$1/?$" | head -n1 || true
}
mirror=${USTACK_MIRROR:-$(host_uri debian)}
secmirror=${USTACK_SECURITY_MIRROR:-$(host_uri debian-security)}
mirror=${mirror:-http://deb.debian.org/debian}
secmirror=${secmirror:-${mirror%/debian*}/debian-security}

# The guest's own configuration, run by mmdebstrap inside the image root
# ($1): no network, a serial console, a user, the Python web application,
# and the unit that runs the tests the host hands it (scripts/system-test.sh).
customize=$(cat <<'EOF'
#!/bin/sh
set -e
r=$1
echo "ustack-$2" >"$r/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tustack-%s\n' "$2" >"$r/etc/hosts"
printf '/dev/vda\t/\text4\terrors=remount-ro\t0\t1\n' >"$r/etc/fstab"
# A user without privileges, as on any machine.
chroot "$r" useradd --create-home --uid 1000 --shell /bin/bash tester
# The application: a python3 web server of the standard library that
# computes something per request, behind nginx.
mkdir -p "$r/opt/webapp"
cat >"$r/opt/webapp/app.py" <<'PY'
"""A small web application: the primes below n, as JSON (http.server)."""
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


def primes(n):
    sieve = [True] * n
    out = []
    for i in range(2, n):
        if sieve[i]:
            out.append(i)
            for j in range(i * i, n, i):
                sieve[j] = False
    return out


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        q = parse_qs(urlparse(self.path).query)
        n = min(int(q.get("n", ["20000"])[0]), 200000)
        body = json.dumps({"n": n, "count": len(primes(n))}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", 8080), Handler).serve_forever()
PY
cat >"$r/etc/systemd/system/webapp.service" <<'UNIT'
[Unit]
Description=A python3 web application (http.server)
After=network.target

[Service]
User=www-data
ExecStart=/usr/bin/python3 /opt/webapp/app.py
Restart=on-failure

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/webapp.service "$r/etc/systemd/system/multi-user.target.wants/webapp.service"
cat >"$r/etc/nginx/sites-available/default" <<'NGX'
server {
	listen 127.0.0.1:80 default_server;
	root /var/www/html;
	location /app/ { proxy_pass http://127.0.0.1:8080/; }
}
NGX
# The tests: a disk the host hands in (/dev/vdb, ext4, label USTACKTEST)
# holds run.sh; it runs once the system is up, at every boot, and writes
# its results to the second serial port (ttyS1), which the host keeps.
cat >"$r/usr/local/sbin/ustack-test-start" <<'SH'
#!/bin/sh
# The test disk, once udev has named it (none: an ordinary boot).
i=0
until [ -e /dev/disk/by-label/USTACKTEST ]; do
	i=$((i + 1)); [ $i -lt 60 ] || exit 0
	sleep 0.5
done
mkdir -p /run/ustack-test
mountpoint -q /run/ustack-test || mount -o ro LABEL=USTACKTEST /run/ustack-test
exec /bin/bash /run/ustack-test/run.sh
SH
chmod 0755 "$r/usr/local/sbin/ustack-test-start"
# (Type=simple: the boot completes while it runs, the tests wait for it;
# not After=multi-user.target, which wants it: a target is ordered after
# what it wants, and the cycle would be broken by dropping a job)
cat >"$r/etc/systemd/system/ustack-test.service" <<'UNIT'
[Unit]
Description=ustack's system test (scripts/system-test.sh)
After=systemd-user-sessions.service nginx.service postgresql.service webapp.service cron.service ssh.service

[Service]
Type=simple
ExecStart=/usr/local/sbin/ustack-test-start
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS1
TTYReset=no
TTYVHangup=no

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/ustack-test.service "$r/etc/systemd/system/multi-user.target.wants/ustack-test.service"
# A reboot is a reboot (kexec only when a test asks for it).
if [ -f "$r/etc/default/kexec" ]; then
	sed -i 's/^LOAD_KEXEC=.*/LOAD_KEXEC=false/' "$r/etc/default/kexec"
fi
# A guest under TCG: no network to wait for, no timers fetching anything.
for u in apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer; do
	rm -f "$r/etc/systemd/system/timers.target.wants/$u"
done
# The packages to install offline: apt's archive keeps them (lists too).
chroot "$r" apt-get clean
shift 2
chroot "$r" apt-get install -y -qq --download-only "$@" >/dev/null
EOF
)
# The recipe: what goes into the image and how (a change builds it anew;
# how it is described afterwards does not).
mkfs_extra=8192	# MiB of room: module builds, the store, a database
hash=$( { declare -p pkgs offline suites security mkfs_extra; echo "$customize";
	  echo "mmdebstrap --mode=root --variant=apt 1"; } | cksum | cut -d' ' -f1)
dir=$cache/systems/$release-$hash
mkdir -p "$cache/systems"
exec 9>"$cache/systems/.lock.$release"
flock 9

describe() {
	cat "$dir/info"
	echo "IMAGE=$dir/root.img"
	echo "VMLINUZ=$dir/vmlinuz"
	echo "INITRD=$dir/initrd.img"
}
if [ -f "$dir/.done" ]; then
	describe
	exit 0
fi
for t in mmdebstrap mkfs.ext4 qemu-img; do
	command -v $t >/dev/null || { echo "system-image.sh: $t missing (scripts/deps.sh check)" >&2; exit 1; }
done

# Images of an older version of this script: only the newest is kept.
rm -rf "$cache/systems/$release"-*
tmp=$(mktemp -d "$cache/systems/.build.$release.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
t0=$SECONDS
printf '%s\n' "$customize" >"$tmp/customize.sh"
chmod +x "$tmp/customize.sh"
echo "system-image: building Debian $release from $mirror (mmdebstrap) ..." >&2


srcs=()
for s in "${suites[@]}"; do srcs+=("deb $mirror $s main"); done
srcs+=("deb $secmirror $security main")
mmdebstrap --mode=root --variant=apt --components=main \
	--include="$(IFS=,; echo "${pkgs[*]}")" \
	--aptopt='Acquire::Languages "none"' \
	--skip=cleanup/apt/lists --skip=cleanup/apt/cache \
	--customize-hook="$tmp/customize.sh \"\$1\" $release ${offline[*]}" \
	"${suites[0]}" "$root" "${srcs[@]}" >"$tmp/mmdebstrap.log" 2>&1 ||
	{ echo "system-image.sh: mmdebstrap failed:" >&2; tail -n 20 "$tmp/mmdebstrap.log" >&2; exit 1; }

krel=$(ls "$root"/boot/vmlinuz-* | sed 's|.*/vmlinuz-||' | sort -V | tail -n1)
[ -n "$krel" ] && [ -f "$root/boot/initrd.img-$krel" ] ||
	{ echo "system-image.sh: no kernel or initramfs in the image" >&2; exit 1; }
krel2=$(for d in "$root"/var/cache/apt/archives/linux-image-*.deb; do dpkg-deb -f "$d" Package; done |
	sed -n 's/^linux-image-\([0-9][0-9]*\.[0-9][0-9]*\.[0-9].*\)/\1/p' | head -n1)
[ -n "$krel2" ] || { echo "system-image.sh: no second kernel in the image's archive" >&2; exit 1; }
mkdir -p "$tmp/out"
cp "$root/boot/vmlinuz-$krel" "$tmp/out/vmlinuz"
cp "$root/boot/initrd.img-$krel" "$tmp/out/initrd.img"
chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' >"$tmp/out/packages.txt"
# Room for the module builds, the store and a database (sparse).
used=$(du -sm "$root" | cut -f1)
# (mkfs.ext4 says "Creating regular file" on stdout even with -q: that
# is for the describing lines alone.)
mkfs.ext4 -q -L root -d "$root" "$tmp/out/root.img" "$((used + mkfs_extra))M" >&2
{
	echo "RELEASE=$release"
	echo "KREL=$krel"
	echo "KREL2=$krel2"
} >"$tmp/out/info"
rm -rf "$root"
mv "$tmp/out" "$dir"
touch "$dir/.done"
echo "system-image: Debian $release ($krel) ready in $((SECONDS - t0)) s: $dir" >&2
describe
exit
}
