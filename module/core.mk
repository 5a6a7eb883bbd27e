# SPDX-License-Identifier: GPL-2.0
# The SFrame core: the one decoder and walk loop, built into ustack.ko
# (Kbuild) and into the user-space tools, tests, fuzzer and benchmarks,
# which include this file:
#     include ../../module/core.mk
#     SRCS += $(addprefix $(USTACK_CORE_DIR),$(USTACK_CORE_SRCS))
# Scripts ask make for the paths:
#     make -s --no-print-directory -f module/core.mk \
#          --eval 'p:;@echo $(addprefix $(USTACK_CORE_DIR),$(USTACK_CORE_SRCS))' p
# Paths are relative to module/ (USTACK_CORE_DIR: module/ as this file was
# named when included).  This file defines variables only, no rule.
USTACK_CORE_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
include $(USTACK_CORE_DIR)arch.mk

# The decoder, the lookup, the step, the rule cache, the walk loop, the
# stack scan, and the architecture's part of the walk (arch.h); and
# CPython's location-table decoder (the kernel's reader, the shim's).
USTACK_CORE_SRCS := sframe_decode.c sframe_find.c sframe_step.c \
		    sframe_cache.c sframe_walk.c sframe_scan.c \
		    arch_$(USTACK_ARCH)_unwind.c py_linetable.c
# ustack_sframe.h is the core's interface; the others are its own.
USTACK_CORE_HDRS := ustack_sframe.h sframe_env.h sframe_decode.h \
		    sframe_stack.h sframe_step.h \
		    sframe_cache.h sframe_scan.h arch.h arch_$(USTACK_ARCH).h \
		    py_linetable.h
