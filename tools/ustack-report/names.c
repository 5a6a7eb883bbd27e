// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: the text names of binary method, end-reason and event
 * codes, and of system calls.  Every name comes from a generated or shared
 * list, none is spelled here: include/ustack_names.h (the module's own
 * vocabulary) and syscall_names.h (module/syscall-names.sh, the module's
 * generator, on the host's unistd_64.h).
 */
#include <string.h>

#include "report.h"
#include "ustack_names.h"

static const char *const method_names[USTACK_METHOD_MAX] = {
	USTACK_METHOD_NAMES(USTACK_NAME_INIT)
};

static const char *const end_names[USTACK_END_MAX] = {
	USTACK_END_NAMES(USTACK_NAME_INIT)
};

static const char *const event_names[USTACK_EVENT_MAX] = {
	USTACK_EVENT_NAMES(USTACK_NAME_INIT)
};

static const char *const syscall_names[] = {
#include "syscall_names.h"
};

#define N(a) (sizeof(a) / sizeof(*(a)))

/* A code without a name (a newer module) prints as <pfx><code>. */
static const char *code_name(const char *const *tab, size_t n, unsigned int c,
			     const char *pfx)
{
	char b[32];

	if (c < n && tab[c])
		return internz(tab[c]);
	snprintf(b, sizeof(b), "%s%u", pfx, c);
	return internz(b);
}

const char *method_name(unsigned int m)
{
	return code_name(method_names, N(method_names), m, "method");
}

const char *end_name(unsigned int e)
{
	return code_name(end_names, N(end_names), e, "end");
}

/*
 * @arg: the name a tp or kprobe event's record carries after its frames,
 * or NULL.
 */
const char *event_name(unsigned int ev, int nr, const char *arg)
{
	char b[160];

	if ((ev == USTACK_EVENT_TP || ev == USTACK_EVENT_KPROBE) && arg && *arg) {
		snprintf(b, sizeof(b), "%s:%s", event_names[ev], arg);
		return internz(b);
	}
	if (ev != USTACK_EVENT_SYSCALL)
		return code_name(event_names, N(event_names), ev, "event");
	if (nr >= 0 && (size_t)nr < N(syscall_names) && syscall_names[nr])
		snprintf(b, sizeof(b), "%s:%s", event_names[ev], syscall_names[nr]);
	else
		snprintf(b, sizeof(b), "%s:%d", event_names[ev], nr);
	return internz(b);
}

static int in(const char *const *tab, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i] && !strcmp(tab[i], s))
			return 1;
	return 0;
}

int name_known(enum name_kind k, const char *s)
{
	const char *colon;

	switch (k) {
	case NAME_METHOD:
		return in(method_names, N(method_names), s);
	case NAME_END:
		return in(end_names, N(end_names), s);
	case NAME_EVENT:
		/*
		 * syscall:<name or number>, tp:<system>:<name>,
		 * kprobe:<function>; the rest stand alone
		 */
		colon = strchr(s, ':');
		if (colon) {
			static const unsigned int with_arg[] = {
				USTACK_EVENT_SYSCALL, USTACK_EVENT_TP,
				USTACK_EVENT_KPROBE,
			};

			for (size_t i = 0; i < N(with_arg); i++) {
				const char *n = event_names[with_arg[i]];

				if (colon - s == (ptrdiff_t)strlen(n) &&
				    !strncmp(s, n, colon - s) && colon[1])
					return 1;
			}
			return 0;
		}
		return in(event_names, N(event_names), s) &&
		       strcmp(s, event_names[USTACK_EVENT_SYSCALL]) &&
		       strcmp(s, event_names[USTACK_EVENT_TP]) &&
		       strcmp(s, event_names[USTACK_EVENT_KPROBE]);
	}
	return 0;
}
