#!/usr/bin/env bash
# Kernel user-stack walk benchmarks: boots a VM guest (QEMU TCG, so the
# absolute times are emulated; compare the ratio, measured side by side)
# and prints the guest's `bench` lines, tagged with the kernel:
#   bench kwalk_sframe_per_frame   kernel self-walk (SFrame), ns per frame
#   bench walk_sframe_per_frame   user-space ustack_sframe_walk(), same stack
#   bench kwalk_vs_uwalk_per_frame ratio of the two
#   bench kwalk_fp_per_frame       kernel self-walk by frame pointers (a build
#                                  with frame pointers and no SFrame), ns per frame
#   bench kwalk_sframe_vs_fp_per_frame  SFrame over frame-pointer cost per frame
#   bench kwalk_fp_ioctl_overhead  SELF_STACK with one frame, that build
#   bench kwalk_ioctl_overhead     SELF_STACK with one frame, ns
#   bench kmem_per_registration    kernel memory per registration, bytes
# Usage: tests/bench/kwalk.sh [KERNEL]   (default 6.12)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/tests/bench/lib/vm-bench.sh" "${1:-6.12}" sframe-bench
