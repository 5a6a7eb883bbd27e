# Names a user chose cannot forge records (issue 14): a program whose
# name and directory hold a newline, a space and a backslash is sampled;
# `cat /dev/ustack` shows them escaped (\012, \040, \134), and no forged
# line starts a record of its own.
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
echo "escaped: $(grep -c 'ev\\040il' /tmp/names.rec) frame lines"
