# tools/tools.mk: what every tool's Makefile shares.  Set TOP (the
# repository root, relative) before including it.
#
# Include path: a tool's own directory, then tools/lib (the library every
# tool links), include/ (the UAPI and the names header), module/ (the
# SFrame core's headers: the module's one decoder and walk loop).
CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
	   -I. -I$(TOP)/tools/lib -I$(TOP)/include -I$(TOP)/module

# The target's architecture (x86_64: a tool's <name>_$(ARCH).S) and
# Debian's multiarch tuple (where libraries are installed).
ARCH      := $(shell $(CC) -dumpmachine | sed 's/-.*//')
MULTIARCH := $(shell $(CC) -print-multiarch)
CFLAGS    += -DUSTACK_MULTIARCH='"$(MULTIARCH)"'

# Code that runs inside other programs (the shim) and the library it links:
# position-independent, nothing exported but what says so, and walkable by
# ustack itself (its own .sframe, frame pointers).
INPROCESS_CFLAGS := -fPIC -fvisibility=hidden -fno-omit-frame-pointer -Wa,--gsframe

.DEFAULT_GOAL := all

# tools/lib: its archives, built by its own Makefile (once: a tool's
# build asks it, and make finds it up to date).
# A program links TOOLS_LIB (no .sframe of its own), the shim
# TOOLS_LIB_INPROCESS (INPROCESS_CFLAGS).
TOOLS_LIB := $(TOP)/tools/lib/libustack-tools-prog.a
TOOLS_LIB_INPROCESS := $(TOP)/tools/lib/libustack-tools.a
LIB_HDRS  := $(wildcard $(TOP)/tools/lib/*.h)
LIBS_ELF  := -lelf -ldw

$(TOOLS_LIB) $(TOOLS_LIB_INPROCESS): FORCE
	$(MAKE) -C $(TOP)/tools/lib

FORCE:
.PHONY: FORCE
