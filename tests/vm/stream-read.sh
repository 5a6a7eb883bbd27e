# Reading: O_NONBLOCK and poll on an empty stream; the binary and packed
# modes' records well-formed, each user record after its sample, a read
# too small for a record, or one that faults, refused with the record kept
# for the next; text
# reads ending between records (a reader stopped between reads keeps
# whole records); a blocking reader woken by new records, in batches.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load sample_hz=0 syscalls=write
./bin/ustack_read nonblock || fail "nonblock"
param_set syscalls ""
param_set sample_hz 499
./bin/workload_fp cpu 1 &
./bin/ustack_read binary 1.5 || fail "binary"
wait
./bin/workload_fp cpu 1 &
./bin/ustack_read packed 1.5 || fail "packed"
wait
./bin/workload_fp cpu 2 &
./bin/ustack_read text 1.5 || fail "text"
wait
w0=$(stat_of reader_wakeups)
./bin/workload_fp cpu 2 &
./bin/ustack_read batched 1.5 || fail "batched"
wait
w1=$(stat_of reader_wakeups)
echo "reader wake-ups: $((w1 - w0))"
[ $((w1 - w0)) -gt 0 ] || fail "a blocked reader was never woken"
ustack_unload
