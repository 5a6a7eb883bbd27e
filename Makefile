# ustack: top-level build.  `make` builds module/ustack.ko and the tools;
# `make check`, `make demo` and `make bench` install what they need first.
VERSION := 0.1.0

# The kernel to build against: KDIR, else KVER's build tree (the running
# kernel's by default).  The tests build against the headers that
# scripts/kernel.sh unpacks into its cache, with KDIR.
KVER ?= $(shell uname -r)
KDIR ?= $(wildcard /lib/modules/$(KVER)/build)
INSTALL_KVER = $(shell sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null || echo $(KVER))

DESTDIR ?=
PREFIX  ?= /usr
TOOLS   := tools/sframe-register tools/ustack-report

all: module tools

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: install linux-headers-$(KVER) or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

tools:
	for d in $(TOOLS); do $(MAKE) -C $$d || exit 1; done

check:
	bash scripts/check.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/bench.sh

install: all
	install -D -m 0644 module/ustack.ko $(DESTDIR)/lib/modules/$(INSTALL_KVER)/updates/ustack.ko
	install -D -m 0755 tools/sframe-register/sframe-register $(DESTDIR)$(PREFIX)/bin/sframe-register
	install -D -m 0755 tools/ustack-report/ustack-report $(DESTDIR)$(PREFIX)/bin/ustack-report
	install -D -m 0644 tools/sframe-register/libsframe-register.so $(DESTDIR)$(PREFIX)/lib/libsframe-register.so
	install -D -m 0644 tools/sframe-register/ustack.h $(DESTDIR)$(PREFIX)/include/ustack.h
	install -D -m 0644 include/uapi/ustack.h $(DESTDIR)$(PREFIX)/include/linux/ustack.h
	if [ -z "$(DESTDIR)" ]; then depmod -a $(INSTALL_KVER); fi

clean:
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR)/module clean
	for d in $(TOOLS); do $(MAKE) -C $$d clean; done
	$(MAKE) -C tests/vm clean
	rm -rf build

.PHONY: all module tools check demo bench install clean
