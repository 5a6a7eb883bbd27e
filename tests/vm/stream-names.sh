# Names a user chose cannot forge records (issue 14): a program whose
# name and directory hold a newline, a space and a backslash is sampled;
# `cat /dev/ustack` shows them escaped (\012, \040, \134), and no forged
# line starts a record of its own.  Long paths are named whole: one
# longer than a record's first room for names (256 bytes), one longer
# than the buffer a task keeps between its records (2 KiB).
# kernels: 6.1 6.12 sid debug
. ./lib.sh
nl='
'
dir="/tmp/ev il${nl}sample cookie=0x0000000000000001 pid=1 tid=1 cpu=0 time=0 event=self comm=forged\\x"
mkdir -p "$dir" || fail "mkdir"
cp ./bin/workload_fp "$dir/w${nl}user x" || fail "cp"
ustack_load sample_hz=499
record_start /tmp/names.rec
"$dir/w${nl}user x" cpu 1 || fail "workload"
record_stop
ustack_unload
grep -q '^sample cookie=0x0000000000000001 ' /tmp/names.rec && fail "a forged sample record"
grep -q '^user x' /tmp/names.rec && fail "a forged line from the comm"
grep -q 'comm=w\\012user\\040x$' /tmp/names.rec || fail "comm not escaped: $(grep -m1 '^sample.*comm=w' /tmp/names.rec)"
grep -q ' /tmp/ev\\040il\\012sample\\040cookie=0x0000000000000001\\040.*comm=forged\\134x/w\\012user\\040x+0x' /tmp/names.rec ||
	fail "path not escaped: $(grep -m1 -F 'tmp/ev' /tmp/names.rec)"
# ustack-report reads the escape back.
if [ -x /usr/bin/ustack-report ]; then
	ustack-report --summary /tmp/names.rec >/tmp/names.sum 2>&1 || fail "ustack-report: $(tail -n 3 /tmp/names.sum)"
fi
rm -rf "$dir"
c=$(printf '%0200d' 0)
short=/tmp/$c/$c
long=/tmp/$c/$c/$c/$c/$c/$c/$c/$c/$c/$c/$c/$c/$c/$c
for d in $short $long; do
	mkdir -p $d && cp ./bin/workload_fp $d/w || fail "mkdir ${#d}"
done
ustack_load sample_hz=499
record_start /tmp/long.rec
$short/w cpu 1 && $long/w cpu 1 || fail "workload at a long path"
record_stop
ustack_unload
for d in $short $long; do
	n=$(grep -c -F " $d/w+0x" /tmp/long.rec)
	[ "$n" -gt 0 ] || fail "a path of ${#d} bytes not named: $(grep -m1 -F '/tmp/000' /tmp/long.rec | cut -c 1-300)"
	echo "path of $((${#d} + 2)) bytes: $n frame lines"
done
rm -rf /tmp/$c
echo "escaped: $(grep -c 'ev\\040il' /tmp/names.rec) frame lines"
