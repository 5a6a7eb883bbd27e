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
# The tools: tools/lib (the library they all link) first, then each
# program (tools/tools.mk has what their Makefiles share).
# The JVM agent where a JDK's headers are (openjdk-17-jdk-headless).
TOOLS   := tools/lib tools/shim tools/sframe-register tools/ustack-report tools/ustackd \
	   $(wildcard tools/jvm-agent)
MANPAGES := $(wildcard man/*.[1-8])

all: module tools

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: install linux-headers-$(KVER) or set KDIR=" >&2; exit 1; }
	@sh module/build-check.sh "$(KDIR)" "$(INSTALL_KVER)"
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

tools:
	for d in $(TOOLS); do $(MAKE) -C $$d PREFIX=$(PREFIX) || exit 1; done

check:
	bash scripts/check.sh

# Every test on every kernel, feature tests included (longer than CI allows).
check-full:
	USTACK_VM_ALL=1 USTACK_CHECK_BUDGET=$${USTACK_CHECK_BUDGET:-14400} bash scripts/check.sh

# Issue 52's arm64 guests alone (TCG, 6.1 and 6.12; also in make check):
# the SFrame core on AArch64, the module's load, stacks and stays.
check-arm64:
	bash tests/arm64/run.sh

# The whole-system tests (tests/system/) in all their variants, alone:
# reboot, kernel upgrade, container, full /var, read-only root.
check-system:
	AREAS=none KERNELS=none SYSTEMS="bookworm trixie" SYSTEM_TESTS=all \
		bash scripts/check.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/bench.sh

install: all install-tools
	install -D -m 0644 module/ustack.ko $(DESTDIR)/lib/modules/$(INSTALL_KVER)/updates/ustack.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(INSTALL_KVER); fi

# The tools, the shim, the headers, ustackd and its unit, the JVM agent
# when it was built, and the man pages of man/: what the ustack-tools
# package holds.
install-tools: tools install-man
	install -D -m 0755 tools/sframe-register/sframe-register $(DESTDIR)$(PREFIX)/bin/sframe-register
	install -D -m 0755 tools/ustack-report/ustack-report $(DESTDIR)$(PREFIX)/bin/ustack-report
	install -D -m 0644 tools/shim/libsframe-register.so $(DESTDIR)$(PREFIX)/lib/libsframe-register.so
	install -D -m 0644 tools/shim/ustack.h $(DESTDIR)$(PREFIX)/include/ustack.h
	install -D -m 0644 include/uapi/ustack.h $(DESTDIR)$(PREFIX)/include/linux/ustack.h
	install -D -m 0755 tools/ustackd/ustackd $(DESTDIR)$(PREFIX)/sbin/ustackd
	install -D -m 0644 tools/ustackd/ustackd.service $(DESTDIR)/lib/systemd/system/ustackd.service
	if [ -f tools/jvm-agent/libustack-jvm.so ]; then \
		install -D -m 0644 tools/jvm-agent/libustack-jvm.so $(DESTDIR)$(PREFIX)/lib/ustack/libustack-jvm.so; fi

# The manual pages alone (no build needed).
install-man:
	for m in $(MANPAGES); do \
		install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man$${m##*.}/$${m##*/} || exit 1; done

# Debian packages ustack-dkms and ustack-tools (debian/), built from a clean
# copy of the sources, as a release tarball would hold them, into build/deb/
# (DEBDIR=: elsewhere, for a test running beside another).
DEBDIR ?= build/deb
DEBSRC := $(DEBDIR)/ustack-$(VERSION)
deb:
	rm -rf $(DEBDIR) && mkdir -p $(DEBSRC)
	git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		cpio --null -pdm --quiet $(DEBSRC)
	sed -i '1s/^ustack ([^)]*)/ustack ($(VERSION))/' $(DEBSRC)/debian/changelog
	sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(VERSION)"/' $(DEBSRC)/dkms.conf
	cd $(DEBSRC) && dpkg-buildpackage -us -uc -b
	rm -rf $(DEBSRC)
	ls $(DEBDIR)/*.deb

clean-tools:
	for d in $(TOOLS); do $(MAKE) -C $$d clean; done

clean: clean-tools
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR)/module clean
	$(MAKE) -C tests/vm clean
	rm -rf build

.PHONY: all module tools check check-full check-system check-arm64 demo bench install install-tools install-man deb clean clean-tools
