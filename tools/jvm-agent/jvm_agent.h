/* SPDX-License-Identifier: GPL-2.0 */
/* jvm_agent.h - the JVM agent's method names (methods.c), for agent.c. */
#ifndef USTACK_JVM_AGENT_H
#define USTACK_JVM_AGENT_H

#include <jvmti.h>
#include <stdint.h>

#define USTACK_COOP_MAX_JFRAMES	128	/* Java frames asked for */

struct jline {
	int32_t bci, line;	/* from bytecode index bci on: line */
};

/* What is known of a method: written once, then only read. */
struct jmeth {
	jmethodID id;
	const char *name;	/* "package.Class.method" */
	const char *file;	/* its class's source file, or "?" */
	int32_t nlines;
	const struct jline *lines;	/* by bci */
};

/*
 * Learn the methods of @klass (outside any signal handler: JVMTI calls,
 * allocation, a lock).  jmeth_find() and jmeth_line() are lock-free and
 * allocate nothing: safe in the request's signal handler.
 */
void jmeth_learn_class(jvmtiEnv *jvmti, jclass klass);
const struct jmeth *jmeth_find(jmethodID id);
int jmeth_line(const struct jmeth *m, jint bci);

#endif
