# Reading: O_NONBLOCK and poll on an empty stream, the binary mode's
# records well-formed, and a blocking reader woken by new records.
. ./lib.sh
ustack_load sample_hz=0 syscalls=write
./bin/ustack_read nonblock || fail "nonblock"
param_set syscalls ""
param_set sample_hz 499
./bin/workload_fp cpu 1 &
./bin/ustack_read binary 1.5 || fail "binary"
wait
ustack_unload
