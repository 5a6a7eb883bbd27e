# ustack_backtrace() under the LD_PRELOAD shim (tools/sframe-register)
# equals glibc backtrace() completely, through Debian's libc (qsort
# comparator, signal handlers, __libc_start_main), a dlopen'ed library and
# after dlclose; the program has no SFrame and no frame pointers.
. ./lib.sh
ustack_load
[ -f /usr/lib/libsframe-register.so ] || fail "libsframe-register.so not built"
[ -x /usr/bin/sframe-register ] || fail "sframe-register not built"
export USTACK_CACHE_DIR=/tmp/ustack-cache
out=$(sframe-register run -- bin/sframe_shim 200 1 /tests/vm/bin/sframe_lib 2>&1) ||
	fail "$(echo "$out" | tail -n 40)"
echo "$out"
# Again, from the cache, with plain LD_PRELOAD.
out=$(LD_PRELOAD=/usr/lib/libsframe-register.so bin/sframe_shim 200 2 /tests/vm/bin/sframe_lib 2>&1) ||
	fail "preload: $(echo "$out" | tail -n 40)"
echo "$out"
