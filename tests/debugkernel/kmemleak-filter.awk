# kmemleak-filter.awk: pass /sys/kernel/debug/kmemleak through, renaming the
# records whose backtrace holds no module frame ("[mod]" tag, or a bare address
# in module space once the module is gone) so that the harness's pattern
# "unreferenced object" flags only leaks made by modules (ustack, test modules).
# 6.1 leaks a few objects of its own at boot (ACPI terminate without PCI).
# Usage (busybox awk): awk -f kmemleak-filter.awk /sys/kernel/debug/kmemleak
function flush() {
	if (rec != "" && !mod)
		sub(/^unreferenced object/, "kmemleak: ignored (no module in its backtrace): object", rec)
	printf "%s", rec
	rec = ""; mod = 0
}
/^unreferenced object/ { flush() }
/^ +\[<[^>]*>\] .*\[[A-Za-z0-9_]+\]$/ || /^ +\[<[^>]*>\] 0xffffffff[a-f]/ { mod = 1 }
{ rec = rec $0 "\n" }
END { flush() }
