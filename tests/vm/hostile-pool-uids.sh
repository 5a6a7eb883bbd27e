# The pool's shares for any number of users (issue 25, item 8): 600
# (300 in make check) distinct uids (a root helper drops to each in turn) ask once for their
# own stack, more than the old share table's 256 slots.  Then the pool
# attack of hostile-pool.sh (lib.sh) with off-CPU samples on: an unprivileged
# user's 200 threads each ask once and sleep, each parking a request (its
# off-CPU sample) in its stay, with a pool of 64.  That user must still be
# capped at its share (share_refused counts its refusals), and root's
# sampled program must get a cookie and a user stack for every sample.
# kernels: 6.1 debug
. ./lib.sh
ustack_load sample_hz=199 max_tasks=64 offcpu=1
record_start /tmp/pu.rec
./bin/uid_spread 20000 $(long 600 300) || fail "uid_spread"
pool_attack /tmp/pu.rec held
