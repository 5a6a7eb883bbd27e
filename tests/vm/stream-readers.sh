# Readers that race (issue 14): two threads on one text fd, two on one
# binary fd with buffers just over one record, two more fds; no torn
# record, no byte past a buffer, no kernel memory in the text, and no
# blocking read that returns 0 (end of file) while the stream is open.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load sample_hz=999 syscalls=write
./bin/workload_fp cpu 4 &
./bin/stream_readers 3 || fail "readers"
wait
ustack_unload
