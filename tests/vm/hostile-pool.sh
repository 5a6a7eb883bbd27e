# The pool attack (issue 14): with a pool of 64 task states, an
# unprivileged user's 200 threads each ask for their own stack once and
# then sleep; root's sampled program still gets a cookie and a user stack
# for every sample.
. ./lib.sh
ustack_load sample_hz=199 max_tasks=64
record_start /tmp/pool.rec
pool_attack /tmp/pool.rec
