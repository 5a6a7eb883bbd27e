# make demo: ustack-report --summary made to fit an 80-column terminal.
# Build-ids go; a section of more than MAXL entries keeps its MAXL largest
# (by the count in its first column) and says how many it left out; a line
# still too long keeps its end (an object's file name) after "...".
# Runs in the guest's busybox awk.
function fit(l) {
	if (length(l) <= 80)
		return l
	return substr(l, 1, 40) "..." substr(l, length(l) - 36)
}
function flush(   i, j, b, x, shown) {
	shown = 0
	for (i = 1; i <= n && i <= MAXL; i++) {
		b = i
		for (j = i + 1; j <= n; j++) {
			x = item[j]
			if (x + 0 > item[b] + 0)
				b = j
		}
		x = item[i]
		item[i] = item[b]
		item[b] = x
		print fit(item[i])
		shown++
	}
	if (n > shown)
		printf "%10s (%d more)\n", "...", n - shown
	n = 0
}
/^ / {
	l = $0
	sub(/ build-id=[0-9a-f]+$/, "", l)
	item[++n] = l
	next
}
{
	flush()
	print fit($0)
}
END { flush() }
