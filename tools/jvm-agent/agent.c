// SPDX-License-Identifier: GPL-2.0
/*
 * libustack-jvm.so: a JVMTI agent (java -agentpath:/usr/lib/libustack-jvm.so)
 * that makes a HotSpot JVM answer ustack's cooperative requests with its
 * Java frames, lang "java": after the kernel walks a thread of the JVM,
 * the thread's handler (libsframe-register.so) calls this unwinder, which
 * asks HotSpot's AsyncGetCallTrace() for the thread's Java frames from the
 * registers of the interrupted thread, and names each as
 * "package.Class.method" in its source file at the line of its bytecode
 * index.  A second runtime on the unwinder API (ustack.h), beside the
 * shim's CPython.
 *
 * AsyncGetCallTrace() is the one call HotSpot makes safe in a signal
 * handler (profilers' own); it gives method IDs and bytecode indexes.
 * Their names cannot be asked for there (JVMTI allocates), so they are
 * learnt beforehand, outside any handler (methods.c): every method of
 * each class as it is prepared (ClassPrepare, and at VMInit the classes
 * loaded already), which also makes HotSpot create the method IDs that
 * AsyncGetCallTrace() needs.  The unwinder registers at VMInit, once
 * both are in place; before, the JVM answers nothing.
 *
 * For the native frames around the Java ones to be walked, run the JVM
 * with -XX:+PreserveFramePointer (JIT code keeps rbp as frame pointer);
 * ustack-report puts the Java frames in place of the frames in anonymous
 * memory (the code cache).  Options (-agentpath:...=OPTS): "quiet" (no
 * line on standard error when the kernel has no ustack).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

#include "ustack.h"
#include "jvm_agent.h"

/* HotSpot's own declarations (not in any header it ships). */
typedef struct {
	jint lineno;		/* bytecode index; < 0: a native method */
	jmethodID method_id;
} ASGCT_CallFrame;

typedef struct {
	JNIEnv *env_id;
	jint num_frames;	/* < 0: why there are none */
	ASGCT_CallFrame *frames;
} ASGCT_CallTrace;

typedef void (*asgct_fn)(ASGCT_CallTrace *, jint, void *);

#define MAX_JFRAMES	USTACK_COOP_MAX_JFRAMES

static JavaVM *jvm;
static jvmtiEnv *jvmti;
static asgct_fn asgct;
static int quiet;

/* The unwinder, in the request's signal handler: no locks, no malloc. */
static int unwind(void *ctx, struct ustack_interp *a)
{
	ASGCT_CallFrame frames[MAX_JFRAMES];
	ASGCT_CallTrace trace;
	JNIEnv *env = NULL;
	void *uc = ustack_interp_ucontext(a);
	int i;

	(void)ctx;
	if (!uc || (*jvm)->GetEnv(jvm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
		return 0;	/* not a Java thread */
	trace.env_id = env;
	trace.num_frames = 0;
	trace.frames = frames;
	asgct(&trace, MAX_JFRAMES, uc);
	for (i = 0; i < trace.num_frames; i++) {
		const struct jmeth *m = jmeth_find(frames[i].method_id);

		if (ustack_interp_add(a, m ? m->name : "?", m ? m->file : "?",
				      m ? jmeth_line(m, frames[i].lineno) : 0, 0))
			break;
	}
	return trace.num_frames > 0 ? trace.num_frames : 0;
}

/* Nothing to do; enabled because AsyncGetCallTrace() wants it on. */
static void JNICALL on_class_load(jvmtiEnv *j, JNIEnv *env, jthread thread,
				  jclass klass)
{
	(void)j;
	(void)env;
	(void)thread;
	(void)klass;
}

/*
 * Nothing to do either.  With this event on, HotSpot's JIT records where
 * each inlined method's code lies at every instruction, not only at
 * safepoints (DebugNonSafepoints, which a JVMTI agent looking at compiled
 * code turns on unless the command line set it), so that
 * AsyncGetCallTrace() at a tick in the middle of a loop names the method
 * inlined there and the ones inlining it, not the scope of the nearest
 * safepoint.
 */
static void JNICALL on_compiled_method_load(jvmtiEnv *j, jmethodID method,
					    jint code_size, const void *code_addr,
					    jint map_length,
					    const jvmtiAddrLocationMap *map,
					    const void *compile_info)
{
	(void)j;
	(void)method;
	(void)code_size;
	(void)code_addr;
	(void)map_length;
	(void)map;
	(void)compile_info;
}

static void JNICALL on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread thread,
				     jclass klass)
{
	(void)env;
	(void)thread;
	jmeth_learn_class(j, klass);
}

static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread thread)
{
	jclass *classes;
	jint n, i, st;
	int ret;

	(void)env;
	(void)thread;
	if ((*j)->GetLoadedClasses(j, &n, &classes) == JVMTI_ERROR_NONE) {
		for (i = 0; i < n; i++)
			if ((*j)->GetClassStatus(j, classes[i], &st) == JVMTI_ERROR_NONE &&
			    (st & JVMTI_CLASS_STATUS_PREPARED))
				jmeth_learn_class(j, classes[i]);
		(*j)->Deallocate(j, (unsigned char *)classes);
	}
	ret = ustack_register_unwinder("java", unwind, NULL);
	if (ret && !quiet)
		fprintf(stderr, "libustack-jvm: no cooperative unwinding: %s\n",
			strerror(-ret));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;

	(void)reserved;
	jvm = vm;
	quiet = options && strstr(options, "quiet");
	asgct = (asgct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
	if (!asgct) {
		fprintf(stderr, "libustack-jvm: no AsyncGetCallTrace in this JVM\n");
		return 0;	/* the program runs, unprofiled */
	}
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
		return 0;
	memset(&caps, 0, sizeof(caps));
	caps.can_get_line_numbers = 1;
	caps.can_get_source_file_name = 1;
	(*jvmti)->AddCapabilities(jvmti, &caps);
	/* Apart: a JVM without it still gets the names and lines. */
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	(*jvmti)->AddCapabilities(jvmti, &caps);
	memset(&cb, 0, sizeof(cb));
	cb.VMInit = on_vm_init;
	cb.ClassPrepare = on_class_prepare;
	cb.ClassLoad = on_class_load;
	cb.CompiledMethodLoad = on_compiled_method_load;
	(*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
	/* AsyncGetCallTrace() answers nothing unless ClassLoad is on. */
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					   JVMTI_EVENT_CLASS_PREPARE, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					   JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
	return 0;
}
