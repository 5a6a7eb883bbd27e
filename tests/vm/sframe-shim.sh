# ustack_backtrace() under the LD_PRELOAD shim (tools/shim)
# equals glibc backtrace() completely, through Debian's libc (qsort
# comparator, signal handlers, __libc_start_main), a dlopen'ed library and
# after dlclose; the program has no SFrame and no frame pointers.
# kernels: 6.1 6.12 sid
. ./lib.sh
ustack_load
[ -f /usr/lib/libsframe-register.so ] || fail "libsframe-register.so not built"
[ -x /usr/bin/sframe-register ] || fail "sframe-register not built"
# Root ignores USTACK_CACHE_DIR (and every USTACK_* variable): its entries
# go to ustackd's store, /var/cache/ustack/sframe (the vDSO's to
# /var/cache/ustack), its helper is /usr/bin/sframe-register.
mkdir -p /var/cache
out=$(sframe-register run -- bin/sframe_shim 200 1 /tests/vm/bin/sframe_lib 2>&1) ||
	fail "$(echo "$out" | tail -n 40)"
echo "$out"
ls /var/cache/ustack/sframe/*.v3.sframe >/dev/null 2>&1 || fail "no entries in the store, /var/cache/ustack/sframe"
# Again, from the cache, with plain LD_PRELOAD.
out=$(LD_PRELOAD=/usr/lib/libsframe-register.so bin/sframe_shim 200 2 /tests/vm/bin/sframe_lib 2>&1) ||
	fail "preload: $(echo "$out" | tail -n 40)"
echo "$out"
# An unprivileged user: its own cache directory, from the environment.
out=$(su -s /bin/sh nobody -c "USTACK_CACHE_DIR=/tmp/ustack-nobody sframe-register run -- bin/sframe_shim 50 3 /tests/vm/bin/sframe_lib" 2>&1) ||
	fail "as nobody: $(echo "$out" | tail -n 40)"
echo "nobody: $out"
ls /tmp/ustack-nobody/*.v3.sframe >/dev/null 2>&1 || fail "no entries in nobody's cache"
