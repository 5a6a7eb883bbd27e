// SPDX-License-Identifier: GPL-2.0
/*
 * gc.c - the store's garbage, unlinked.  Superseded entries go at once
 * (cover.c); the others an object no longer holds stayed for good: a user
 * copying a library to a new file, mapping it and deleting it, in a loop,
 * left an entry a round until /var was full.  A pass (at startup, after
 * the first scan; then after every rescan) unlinks:
 *
 *   the entries of objects gone: an object no scan met (no process maps
 *   it) whose path now names no file or another one (another device and
 *   inode; for a user's object, another identity too) is forgotten, and
 *   its entry unlinked: a user's at once, a shared one (build-id,
 *   contents) once no object the daemon knows holds it.  An object still
 *   there is kept, and so is its entry: root's system objects, prepared
 *   or mapped, keep theirs.  The paths are a user's: they are looked up
 *   in a limited child (GC_SECONDS), one byte of answer an object, so that
 *   a file system that never answers costs that child's time, not the
 *   daemon's (a path not answered is kept);
 *   users' entries the module evicted: past its store_user_max for one
 *   owner, the oldest registered go first there (store_owner.c), and so
 *   here, for objects no scan met (a mapped one is registered again);
 *   users' entries no object holds (forgotten past MAX_USER_OBJECTS, an
 *   earlier daemon's, root's shim's) and older than GC_GRACE_S (one being
 *   written and registered by the preparer or root's shim meanwhile is
 *   younger), met as the pass reads the store's directory, GC_SWEEP files
 *   a pass, from where the last pass stopped.  Reading it whole also counts
 *   the store's bytes again (budget.c's count, kept as entries come and go).
 *
 * A pass that made room forgets the objects refused for the budget
 * (budget.c), so that the next scan that meets them tries them again.
 * Each pass is bounded: GC_BATCH objects looked up, GC_SWEEP files read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ustackd.h"

#define GC_BATCH	512	/* objects whose paths a pass looks up */
#define GC_SWEEP	4096	/* store files a pass reads */
#define GC_GRACE_S	60
#define GC_SECONDS	2
#define USER_MAX_PARAM	"/sys/module/ustack/parameters/store_user_max"

static size_t cursor;		/* the next table slot to look at */
static DIR *sweep;		/* the store's directory, as far as read */
static uint64_t sweep_bytes;	/* what the sweep counted so far */

void gc_unlink(const char *name, uint64_t bytes)
{
	if (unlinkat(store_fd, name, 0))
		return;
	cnt.collected++;
	store_bytes -= bytes < store_bytes ? bytes : store_bytes;
	status_dirty = true;
	if (opt.verbose)
		logmsg("collected %s/%s", opt.store, name);
}

static bool users_entry(const struct obj *o)
{
	return (o->state == OBJ_COVERED || o->state == OBJ_PREPARED) &&
	       o->what && !strncmp(o->what, "u-", 2);
}

/* A path as path_shown() gave it, its bytes again (\ooo: one byte). */
static void path_raw(const char *shown, char *out, size_t len)
{
	size_t n = 0;

	for (; *shown && n + 1 < len; shown++) {
		if (shown[0] == '\\' && shown[1] >= '0' && shown[1] <= '3' &&
		    shown[2] >= '0' && shown[2] <= '7' && shown[3] >= '0' &&
		    shown[3] <= '7') {
			out[n++] = (char)((shown[1] - '0') << 6 |
					  (shown[2] - '0') << 3 | (shown[3] - '0'));
			shown += 3;
		} else {
			out[n++] = *shown;
		}
	}
	out[n] = '\0';
}

/* 1: @o's path names no file, or another one (a user's: changed); 0: it
 * names @o; 2: no answer (another error). */
static char gone_one(const struct obj *o)
{
	char raw[4096];
	struct cache_src now;
	struct stat st;

	path_raw(o->path, raw, sizeof(raw));
	if (raw[0] != '/')
		return 2;
	if (stat(raw, &st))
		return errno == ENOENT || errno == ENOTDIR ? 1 : 2;
	if (st.st_dev != o->src.dev || st.st_ino != o->src.ino)
		return 1;
	cache_src_of(&now, &st);
	return (o->user || users_entry(o)) && memcmp(&now, &o->src, sizeof(now));
}

/*
 * gone_one() of the objects at slots @idx[0..@n), in a limited child,
 * into @gone (2 for those it did not answer).
 */
static void check_gone(const size_t *idx, size_t n, char *gone)
{
	char why[96];
	int p[2], pid;
	ssize_t got;

	memset(gone, 2, n);
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return;
	pid = limited_fork(EXAMINE_AS_LIMIT, GC_SECONDS, why, sizeof(why));
	if (!pid) {
		for (size_t i = 0; i < n; i++) {
			/* (an alias's path names its file by another device) */
			char g = tab[idx[i]].alias ? 2 : gone_one(&tab[idx[i]]);

			if (write(p[1], &g, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	/* (n <= GC_BATCH: the pipe holds every answer, the child never waits) */
	if (pid > 0 && limited_wait(pid, why, sizeof(why)) && opt.verbose)
		logmsg("store's garbage: the paths' lookup %s", why);
	got = pid > 0 ? read(p[0], gone, n) : 0;
	if (got < 0)
		memset(gone, 2, n);
	close(p[0]);
}

/*
 * Up to GC_BATCH objects no scan met, from the cursor on, looked up:
 * those gone forgotten, their users' entries unlinked, the names of the
 * shared ones into @shared (*@nshared) for the caller to unlink if no
 * object holds them any more.
 */
static void collect_gone(char (*shared)[STORE_NAME_MAX], size_t *nshared)
{
	static size_t idx[GC_BATCH];
	static struct { uint64_t dev, ino; } key[GC_BATCH];
	char gone[GC_BATCH];
	size_t n = 0;

	*nshared = 0;
	for (size_t s = 0; s < tab_cap && n < GC_BATCH; s++) {
		const struct obj *o = &tab[cursor = (cursor + 1) % tab_cap];

		if ((o->dev || o->ino) && o->path && o->seen != scan_gen) {
			key[n].dev = o->dev;
			key[n].ino = o->ino;
			idx[n++] = cursor;
		}
	}
	if (!n)
		return;
	check_gone(idx, n, gone);
	for (size_t i = 0; i < n; i++) {
		struct obj *o = gone[i] ? tab_find(key[i].dev, key[i].ino) : NULL;

		if (o && o->alias) {
			/* a btrfs alias no scan met: the next one makes it again */
			tab_del(o);
			continue;
		}
		if (!o || gone[i] != 1)
			continue;
		if (users_entry(o))
			gc_unlink(o->what, o->bytes);
		else if ((o->state == OBJ_COVERED || o->state == OBJ_PREPARED) &&
			 o->what && o->what[0] && strlen(o->what) < STORE_NAME_MAX)
			strcpy(shared[(*nshared)++], o->what);
		tab_del(o);	/* (the table moves: keys, not slots) */
		status_dirty = true;
	}
}

/* The module's store_user_max, or 0 (no module, none read). */
static unsigned long user_max(void)
{
	unsigned long v = 0;
	FILE *f = registering ? fopen(USER_MAX_PARAM, "re") : NULL;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

struct reg {
	uint64_t whose;
	bool mapped;
	uint64_t when, dev, ino;
};

static int reg_cmp(const void *a, const void *b)
{
	const struct reg *x = a, *y = b;

	if (x->whose != y->whose)
		return x->whose < y->whose ? -1 : 1;
	return x->when > y->when ? -1 : x->when < y->when;	/* newest first */
}

/* Users' entries past store_user_max an owner, unmapped, oldest first. */
static void collect_evicted(void)
{
	unsigned long max = user_max(), left = GC_BATCH;
	struct reg *r;
	size_t n = 0;

	if (!max || tab_users <= max || !(r = malloc(tab_users * sizeof(*r))))
		return;
	for (size_t i = 0; i < tab_cap && n < tab_users; i++) {
		const struct obj *o = &tab[i];

		if ((o->dev || o->ino) && !o->alias && o->state == OBJ_COVERED &&
		    users_entry(o))
			r[n++] = (struct reg){ o->whose, o->seen == scan_gen,
					       o->when_ms, o->dev, o->ino };
	}
	qsort(r, n, sizeof(*r), reg_cmp);
	for (size_t i = 0, rank = 0; i < n && left; i++) {
		struct obj *o;

		rank = i && r[i].whose == r[i - 1].whose ? rank + 1 : 0;
		if (rank < max || r[i].mapped || !(o = tab_find(r[i].dev, r[i].ino)))
			continue;
		gc_unlink(o->what, o->bytes);
		tab_del(o);
		left--;
	}
	free(r);
}

static uint64_t name_hash(const char *name)
{
	return entry_hash(ENTRY_HASH_INIT, name, strlen(name));
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The entries the objects hold, as sorted hashes of their names (*@n). */
static uint64_t *held(size_t *n)
{
	uint64_t *h = malloc((tab_used + 1) * sizeof(*h));

	*n = 0;
	if (!h)
		return NULL;
	for (size_t i = 0; i < tab_cap && *n < tab_used; i++) {
		const struct obj *o = &tab[i];

		if ((o->dev || o->ino) && o->what &&
		    (o->state == OBJ_COVERED || o->state == OBJ_PREPARED))
			h[(*n)++] = name_hash(o->what);
	}
	if (vdso_obj.what)
		h[(*n)++] = name_hash(vdso_obj.what);
	qsort(h, *n, sizeof(*h), u64_cmp);
	return h;
}

static bool is_held(const uint64_t *h, size_t n, const char *name)
{
	uint64_t k = name_hash(name);

	return h && bsearch(&k, h, n, sizeof(*h), u64_cmp);
}

/*
 * GC_SWEEP files of the store's directory, from where the last pass
 * stopped: users' entries nothing holds (@h), GC_GRACE_S old, unlinked;
 * the others counted, the store's bytes set once the whole is read.
 */
static void sweep_store(const uint64_t *h, size_t n)
{
	size_t suffix = strlen(CACHE_SUFFIX);
	time_t now = time(NULL);

	if (!sweep) {
		int fd = openat(store_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		sweep = fd < 0 ? NULL : fdopendir(fd);
		if (!sweep) {
			if (fd >= 0)
				close(fd);
			return;
		}
		sweep_bytes = 0;
	}
	for (int i = 0; i < GC_SWEEP; i++) {
		struct dirent *de = readdir(sweep);
		struct stat st;
		size_t len;

		if (!de) {
			store_bytes = sweep_bytes;
			closedir(sweep);
			sweep = NULL;
			return;
		}
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= suffix ||
		    strcmp(de->d_name + len - suffix, CACHE_SUFFIX) ||
		    fstatat(store_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (!strncmp(de->d_name, "u-", 2) && !is_held(h, n, de->d_name) &&
		    now - st.st_mtime >= GC_GRACE_S)
			gc_unlink(de->d_name, entry_cost(st.st_size));
		else
			sweep_bytes += entry_cost(st.st_size);
	}
}

/*
 * Room was made: the objects refused for the budget forgotten (GC_BATCH
 * at most), so that the next scan that meets them tries them again.
 */
static void retry_over_budget(void)
{
	static struct { uint64_t dev, ino; } key[GC_BATCH];
	size_t n = 0;

	for (size_t i = 0; i < tab_cap && n < GC_BATCH; i++) {
		const struct obj *o = &tab[i];

		if ((o->dev || o->ino) && o->state == OBJ_REFUSED && o->what &&
		    !strncmp(o->what, OVER_BUDGET, strlen(OVER_BUDGET))) {
			key[n].dev = o->dev;
			key[n++].ino = o->ino;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct obj *o = tab_find(key[i].dev, key[i].ino);

		if (o)
			tab_del(o);
	}
}

void gc_pass(void)
{
	static char shared[GC_BATCH][STORE_NAME_MAX];
	unsigned long before = cnt.collected;
	size_t nshared, n;
	uint64_t *h;

	collect_gone(shared, &nshared);
	collect_evicted();
	h = held(&n);
	for (size_t i = 0; h && i < nshared; i++)
		if (!is_held(h, n, shared[i]))
			gc_unlink(shared[i], budget_entry(shared[i]));
	if (h)
		sweep_store(h, n);
	free(h);
	if (cnt.collected == before)
		return;
	retry_over_budget();
	logmsg("store's garbage: %lu entries collected (%lu in all); store %.1f MiB",
	       cnt.collected - before, cnt.collected, store_bytes / 1048576.0);
}
