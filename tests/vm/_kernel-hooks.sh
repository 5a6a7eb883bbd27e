# Not a test (no verdict beyond "it ran"): what the running kernel offers
# the hooks ustack uses or may use, for reading in the log of
# `bash scripts/vm-test.sh KERNEL _kernel-hooks`.  Per symbol: its
# kallsyms type (T global, t local, - none), whether ftrace can trace it
# (available_filter_functions) and whether kprobes refuse it (blacklist).
. ./lib.sh
ustack_unload
ustack_install
tr=/sys/kernel/tracing
[ -r $tr/available_filter_functions ] || tr=/sys/kernel/debug/tracing
for s in unwind_user unwind_user_faultable unwind_user_next unwind_user_start \
	 unwind_deferred_request unwind_deferred_task_work unwind_deferred_init \
	 perf_callchain_user perf_callchain get_perf_callchain \
	 remove_vma unmap_vmas unmap_region move_page_tables do_vmi_munmap \
	 fire_user_return_notifiers exit_to_user_mode_loop exit_to_user_mode_prepare \
	 task_work_run syscall_exit_to_user_mode_work arch_do_signal_or_restart; do
	k=$(awk -v s="$s" '$3 == s { print $2; exit }' /proc/kallsyms)
	f=no
	grep -q "^$s\( \|$\)" $tr/available_filter_functions 2>/dev/null && f=yes
	b=no
	grep -q " $s\$" /sys/kernel/debug/kprobes/blacklist 2>/dev/null && b=yes
	echo "hook $s kallsyms=${k:--} ftrace=$f kprobe-blacklist=$b"
done
grep -E 'CONFIG_(UNWIND_USER|USER_RETURN_NOTIFIER|HAVE_UNWIND_USER_FP)=' /proc/config.gz 2>/dev/null
dmesg | grep -E 'ustack: (cannot probe|no )' || echo "hook registry probes: in place"
