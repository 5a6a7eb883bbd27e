#!/usr/bin/env python3
"""The vocabulary of include/ustack_names.h for scripts and tests.

vocabulary(): {"method": {name: code}, "end": {...}, "event": {...}}, the
X-macro lists of include/ustack_names.h with their codes from
include/uapi/ustack.h; syscalls(): {name: number}, from
module/syscall-names.sh (the module's generator) on the host's headers.

As a command, prints one "KIND NAME CODE" line per name (the guest tests'
bin/names, read by tests/vm/stream-check.awk).
"""
import os
import re
import subprocess
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    ".."))


def vocabulary(top=TOP):
    """See the module's docstring."""
    codes = {}
    with open(os.path.join(top, "include/uapi/ustack.h")) as f:
        for m in re.finditer(r"^\s*(USTACK_\w+)\s*=\s*(\d+)\s*,", f.read(), re.M):
            codes[m.group(1)] = int(m.group(2))
    vocab = {}
    with open(os.path.join(top, "include/ustack_names.h")) as f:
        text = f.read()
    for kind in ("method", "end", "event"):
        m = re.search(r"#define USTACK_%s_NAMES\(X\)(.*?)(?:\n\s*\n|\Z)" % kind.upper(),
                      text, re.S)
        if not m:
            raise SystemExit("ustack_names.h: no USTACK_%s_NAMES" % kind.upper())
        vocab[kind] = {}
        for code, name in re.findall(r'X\((USTACK_\w+),\s*"([^"]+)"\)', m.group(1)):
            if code not in codes:
                raise SystemExit("ustack_names.h: %s is not in uapi/ustack.h" % code)
            vocab[kind][name] = codes[code]
    return vocab


def syscalls(top=TOP):
    """See the module's docstring."""
    out = subprocess.run(["sh", os.path.join(top, "module/syscall-names.sh")],
                         capture_output=True, text=True, check=True).stdout
    return {n: int(nr) for nr, n in re.findall(r'^\[(\d+)\] = "(\w+)",$', out, re.M)}


def main():
    vocab = vocabulary(sys.argv[1] if len(sys.argv) > 1 else TOP)
    for kind in ("method", "end", "event"):
        for name, code in vocab[kind].items():
            print(kind, name, code)


if __name__ == "__main__":
    main()
