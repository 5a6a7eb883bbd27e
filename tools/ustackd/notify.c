// SPDX-License-Identifier: GPL-2.0
/*
 * ustackd's word to systemd: the sd_notify protocol (sd_notify(3), "the
 * notification socket": one datagram of newline-separated VARIABLE=value
 * assignments to the AF_UNIX socket named by $NOTIFY_SOCKET, a path or,
 * after '@', an abstract name).  READY=1 makes a Type=notify unit active
 * at `ustackd: ready`; STATUS= is what `systemctl status` shows;
 * STOPPING=1 at SIGTERM.  Without $NOTIFY_SOCKET (not run by systemd, or
 * another Type) it does nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "ustackd.h"

int notify(const char *fmt, ...)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[512];
	size_t len;
	va_list ap;
	int fd, n;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len < 2 || len >= sizeof(sa.sun_path))
		return -EAFNOSUPPORT;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EMSGSIZE;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, msg, n, MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   offsetof(struct sockaddr_un, sun_path) + len);
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}
