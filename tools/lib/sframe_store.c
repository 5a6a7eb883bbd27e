// SPDX-License-Identifier: GPL-2.0
/* sframe_store.c - the root-owned SFrame store (sframe_store.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "fileio.h"
#include "sframe_store.h"

/* A directory root alone can change: writable by group or others only with
 * the sticky bit (as /tmp), and never for the store itself. */
static int check_dir(int fd, const char *what, bool store, char *err,
		     size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != 0) {
		snprintf(err, errlen, "%s: owned by uid %u, not root", what,
			 (unsigned int)st.st_uid);
		return -EPERM;
	}
	if ((st.st_mode & 022) && (store || !(st.st_mode & S_ISVTX))) {
		snprintf(err, errlen, "%s: writable by group or others (mode %04o)",
			 what, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int store_open(const char *path, char *err, size_t errlen)
{
	char buf[4096], *comp, *save = NULL;
	int fd, next, ret;

	if (path[0] != '/' || strlen(path) >= sizeof(buf)) {
		snprintf(err, errlen, "%s: the store must be an absolute path", path);
		return -EINVAL;
	}
	strcpy(buf, path);
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = check_dir(fd, "/", false, err, errlen);
	for (comp = strtok_r(buf, "/", &save); comp && !ret;
	     comp = strtok_r(NULL, "/", &save)) {
		/* what strtok_r has left says whether this is the store itself */
		bool last = !save || save[strspn(save, "/")] == '\0';
		bool created = false;

		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			snprintf(err, errlen, "%s: no . or .. in the store's path", path);
			ret = -EINVAL;
			break;
		}
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(fd, comp, 0755) && errno != EEXIST) {
				ret = -errno;
				snprintf(err, errlen, "%s: cannot create %s: %s", path,
					 comp, strerror(errno));
				break;
			}
			created = true;
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s: %s", path, comp,
				 errno == ELOOP || errno == ENOTDIR ?
				 "not a directory (a symbolic link?)" : strerror(errno));
			break;
		}
		close(fd);
		fd = next;
		/* whatever the umask */
		if (created && fchmod(fd, 0755)) {
			ret = -errno;
			break;
		}
		ret = check_dir(fd, last ? path : comp, last, err, errlen);
	}
	if (ret) {
		if (!*err)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

bool store_trusted_object(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & 022);
}

/*
 * Is the file open as @fd on a file system root mounted for the system?
 * Not FUSE (its server chooses the contents), not a nosuid mount (users'
 * mounts come so: udisks' loop images and removable media, fstab's
 * "user"), where a user wrote every file, root's included.  The module
 * asks the same of a STORE_ADD's object.
 */
static bool on_system_fs(int fd)
{
	struct statvfs v;
	struct statfs f;

	return !fstatvfs(fd, &v) && !(v.f_flag & ST_NOSUID) &&
	       !fstatfs(fd, &f) && f.f_type != FUSE_SUPER_MAGIC;
}

int store_system_view(int fd, const char *path)
{
	char alt[4096 + 16];
	struct stat a, b;
	struct statvfs v;
	int afd;

	if (fstatvfs(fd, &v) || !(v.f_flag & ST_NOSUID) || path[0] != '/' ||
	    fstat(fd, &a) || !store_trusted_object(&a))
		return fd;
	if (snprintf(alt, sizeof(alt), "/proc/1/root%s", path) >= (int)sizeof(alt))
		return fd;
	afd = open(alt, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (afd < 0)
		return fd;
	/* the same file, on a mount that is not nosuid: PID 1's view */
	if (fstat(afd, &b) || b.st_dev != a.st_dev || b.st_ino != a.st_ino ||
	    !on_system_fs(afd)) {
		close(afd);
		return fd;
	}
	close(fd);
	return afd;
}

uint64_t store_content_hash(int fd, uint64_t size, int *err)
{
	/* not static: the shim's threads may hash at once */
	size_t bufsz = 1 << 16;
	unsigned char *buf = malloc(bufsz);
	uint64_t h = ENTRY_HASH_INIT, off = 0;

	if (!buf) {
		*err = ENOMEM;
		return 0;
	}
	while (off < size) {
		ssize_t n = pread(fd, buf, bufsz, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = n < 0 ? errno : EIO;
			h = 0;
			break;
		}
		h = entry_hash(h, buf, n);
		off += n;
	}
	free(buf);
	return h;
}

int store_entry_name(int fd, const struct stat *st, const char *bid,
		     char *name, size_t len, bool *need_src)
{
	struct cache_src src;
	bool trusted;
	int n;

	*need_src = false;
	/* a shared name only for root's objects on the system's file systems */
	trusted = store_trusted_object(st) && (fd < 0 || on_system_fs(fd));
	if (trusted && bid[0]) {
		n = snprintf(name, len, "%s" CACHE_SUFFIX, bid);
	} else if (trusted) {
		int err = 0;
		uint64_t h;

		if (fd < 0)
			return -EAGAIN;
		h = store_content_hash(fd, st->st_size, &err);
		if (err)
			return -err;
		n = snprintf(name, len, "c-%016llx" CACHE_SUFFIX,
			     (unsigned long long)h);
	} else {
		*need_src = true;
		cache_src_of(&src, st);
		n = snprintf(name, len, "u-%016llx" CACHE_SUFFIX,
			     (unsigned long long)cache_src_hash(&src));
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int store_get(int dirfd, const char *name, const struct cache_src *src,
	      struct cache_hdr *h)
{
	struct stat st;
	int fd, ret;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto bad;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) ||
	    st.st_nlink != 1) {
		ret = -EPERM;
		goto bad;
	}
	ret = entry_hdr_read(fd, &st, h);
	if (ret)
		goto bad;
	if (src && memcmp(&h->src, src, sizeof(*src))) {
		ret = -ESTALE;
		goto bad;
	}
	return fd;
bad:
	close(fd);
	return ret;
}

int store_put(int dirfd, const char *name, const struct cache_hdr *h,
	      const void *sf, size_t len)
{
	char tmp[STORE_NAME_MAX + 32];
	int fd, ret;

	/* a leading dot: never taken for an entry */
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	ret = fchmod(fd, 0644) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, h, sizeof(*h));
	if (!ret && len)
		ret = write_all(fd, sf, len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret) {
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	/* the rename itself survives a crash */
	fsync(dirfd);
	return 0;
}
