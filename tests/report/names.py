#!/usr/bin/env python3
"""Check that the names users and tests see are those of include/ustack_names.h.

  names.py readme    the README's lists of events, methods and end reasons
                     (section "Devices, parameters, records") == the header's
  names.py sources [FILE...]
                     no name is spelled in ustack-report's C sources (they
                     take every name from the header), and every event, end
                     reason or method the VM tests ask stream-check.awk or
                     grep for (and FILEs ask for) is a name of the header
Prints one line per disagreement; exit status 1 if there is any.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
import ustack_names  # noqa: E402

TOP = ustack_names.TOP


def readme(vocab, path):
    text = open(path).read()
    m = re.search(r"^## Devices, parameters, records\n(.*?)^## ", text, re.M | re.S)
    if not m:
        return ["README: no section 'Devices, parameters, records'"]
    sec = m.group(1)
    # "`event` is ...; `method` is ...; `end` is ....": the lists, in order
    m = re.search(r"`event` is\s(.*?);\s`method` is\s(.*?);\s`end` is\s(.*?)\.\s*\n", sec, re.S)
    if not m:
        return ["README: no \"`event` is ...; `method` is ...; `end` is ...\" sentence"]
    errs = []
    for kind, words in zip(("event", "method", "end"), m.groups()):
        said = set(re.sub(r":<.*$", "", w) for w in re.findall(r"`([^`]+)`", words))
        have = set(vocab[kind])
        for n in sorted(said - have):
            errs.append("README: %s `%s` is not in ustack_names.h" % (kind, n))
        for n in sorted(have - said):
            errs.append("README: %s `%s` of ustack_names.h is missing" % (kind, n))
    return errs


def c_literals(path):
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.findall(r'"((?:[^"\\\n]|\\.)*)"', text)


WITH_ARG = ("syscall", "tp", "kprobe")   # syscall:<name>, tp:<system>:<name>, ...


def known(vocab, kind, name):
    if kind == "event" and ":" in name:
        base, arg = name.split(":", 1)
        return base in WITH_ARG and base in vocab[kind] and arg != ""
    if kind == "event" and name in WITH_ARG:
        return False        # never alone
    return name in vocab[kind]


def sources(vocab, extra=()):
    errs = []
    every = {n: k for k in vocab for n in vocab[k]}
    for path in sorted(glob.glob(os.path.join(TOP, "tools/ustack-report/*.[ch]"))):
        if path.endswith("syscall_names.h"):
            continue
        for lit in c_literals(path):
            if lit in every:
                errs.append("%s: %s name \"%s\" spelled out: take it from "
                            "ustack_names.h" % (os.path.relpath(path, TOP), every[lit], lit))
    files = sorted(glob.glob(os.path.join(TOP, "tests/vm/*.sh")) +
                   glob.glob(os.path.join(TOP, "tests/vm/*.awk")) + list(extra))
    pats = [("event", r"\bevent=([a-z][a-z0-9_-]*(?::[a-z0-9_.]+)*)"),
            ("end", r"\bend=([a-z][a-z-]*)"),
            ("end", r"\bends=([a-z][a-z,-]*)"),
            ("end", r'\bends = "([a-z][a-z,-]*)"'),
            ("event", r'kv\("event"\) == "([^"]*)"'),
            ("end", r'kv\("end"\) == "([^"]*)"')]
    for path in files:
        for no, line in enumerate(open(path), 1):
            for kind, pat in pats:
                for v in re.findall(pat, line):
                    for name in v.split(","):
                        if not known(vocab, kind, name):
                            errs.append("%s:%d: %s '%s' is not in ustack_names.h"
                                        % (os.path.relpath(path, TOP), no, kind, name))
    return errs


def main():
    vocab = ustack_names.vocabulary()
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "readme":
        errs = readme(vocab, sys.argv[2] if len(sys.argv) > 2 else
                      os.path.join(TOP, "README.md"))
    elif what == "sources":
        errs = sources(vocab, sys.argv[2:])
    else:
        raise SystemExit(__doc__)
    for e in errs:
        print(e)
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
