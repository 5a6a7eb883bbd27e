# Only CAP_PERFMON or CAP_SYS_ADMIN may open /dev/ustack: an unprivileged
# user is refused by the mode, and by the module even with mode 0666.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load
./bin/ustack_read perm || fail "perm"
ustack_unload
