# The SFrame core (decoder, rule cache, walk loop), as the tools and tests
# build it in user space: sources and headers, relative to module/.
USTACK_CORE_SRCS := ustack_sframe.c
USTACK_CORE_HDRS := ustack_sframe.h sframe_env.h arch_x86.h
