// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: pprof's profile.proto, gzipped, as go tool pprof,
 * Pyroscope and Parca read it; encoded by the code protoc-c generates from
 * profile.proto, compressed by zlib.
 *
 * One sample type per event ("cpu-clock"/"count", "syscall:write"/"count",
 * ...): a sample holds one value per type, the count of its event's samples
 * with that stack and those labels, zero for the others.  Labels: pid, tid
 * (numbers) and comm.  Locations, leaf first: kernel frames (mapping
 * "[kernel.kallsyms]" or the module's "[name]"), user frames (a mapping per
 * process, object and load bias, with the object's path, file offset and
 * build-id), interpreter frames and the marks of the other outputs (no
 * mapping).  Every mapping says it has functions, so that pprof takes the
 * names given here (the symbolizer's, with file:line under -l) rather than
 * open the objects again.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report.h"
#include "profile.pb-c.h"


/* A growable array of message pointers. */
#define GROW(arr, n, cap) do {						\
	if ((n) == (cap)) {						\
		(cap) = (cap) ? (cap) * 2 : 64;				\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
	}								\
} while (0)

static struct ktab strtab, maptab, loctab, functab, samptab, typetab;
static char **strs;
static size_t nstr, capstr;

static int64_t str_id(const char *s)
{
	int added;
	uint32_t id = ktab_id(&strtab, s, strlen(s), &added);

	if (added) {
		GROW(strs, nstr, capstr);
		strs[nstr++] = (char *)s;
	}
	return id;
}

static struct Perftools__Profiles__Mapping **maps;
static size_t nmap, capmap;

/*
 * User mappings are keyed by (pid, object, ip - offset): one load bias.
 * Kernel ones have no file offset: NO_BIAS.
 */
#define NO_BIAS UINT64_MAX

struct mapkey {
	uint64_t pid;		/* 64 bits: no padding in a hashed key */
	const char *obj;
	uint64_t bias;
};

static struct Perftools__Profiles__Mapping *
mapping_of(uint32_t pid, const char *obj, uint64_t bias, uint64_t addr,
	   const char *build_id, int lines)
{
	struct mapkey k = { pid, obj, bias };
	int added;
	uint32_t id = ktab_id(&maptab, &k, sizeof(k), &added);
	struct Perftools__Profiles__Mapping *m;

	if (!added) {
		m = maps[id];
		if (addr < m->memory_start) {
			m->memory_start = addr;
			if (bias != NO_BIAS)
				m->file_offset = addr - bias;
		}
		if (addr >= m->memory_limit)
			m->memory_limit = addr + 1;
		return m;
	}
	m = xalloc(sizeof(*m));
	*m = (struct Perftools__Profiles__Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
	m->id = id + 1;
	m->memory_start = addr;
	m->memory_limit = addr + 1;
	m->file_offset = bias != NO_BIAS ? addr - bias : 0;
	m->filename = str_id(obj);
	m->build_id = build_id ? str_id(build_id) : 0;
	m->has_functions = 1;
	m->has_filenames = m->has_line_numbers = lines;
	GROW(maps, nmap, capmap);
	maps[nmap++] = m;
	return m;
}

static struct Perftools__Profiles__Function **funcs;
static size_t nfunc, capfunc;

static uint64_t function_id(const char *name, const char *file)
{
	const char *k[2] = { name, file };
	int added;
	uint32_t id = ktab_id(&functab, k, sizeof(k), &added);
	struct Perftools__Profiles__Function *f;

	if (added) {
		f = xalloc(sizeof(*f));
		*f = (struct Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
		f->id = id + 1;
		f->name = f->system_name = str_id(name);
		f->filename = file ? str_id(file) : 0;
		GROW(funcs, nfunc, capfunc);
		funcs[nfunc++] = f;
	}
	return id + 1;
}

static struct Perftools__Profiles__Location **locs;
static size_t nloc, caploc;

static uint64_t location_id(const struct pframe *p, const struct sample *s,
			    int lines)
{
	struct {
		uint64_t mapping, addr, func;
		int64_t line;
	} k = { 0 };
	struct Perftools__Profiles__Mapping *m = NULL;
	int added;
	uint32_t id;
	struct Perftools__Profiles__Location *l;

	if (p->kind == PK_KERNEL) {
		m = mapping_of(0, kernel_object(p->k), NO_BIAS, p->k->addr,
			       NULL, 0);
		k.addr = p->k->addr;
	} else if (p->kind == PK_USER) {
		const struct uframe *u = p->u;

		m = mapping_of(s->pid, u->obj, u->ip - u->off, u->ip,
			       u->res ? u->res->build_id : NULL, lines);
		k.addr = u->ip;
	}
	k.mapping = m ? m->id : 0;
	k.func = function_id(p->name, p->file);
	k.line = p->line;
	id = ktab_id(&loctab, &k, sizeof(k), &added);
	if (added) {
		struct Perftools__Profiles__Line *ln = xalloc(sizeof(*ln));

		*ln = (struct Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
		ln->function_id = k.func;
		ln->line = k.line;
		l = xalloc(sizeof(*l));
		*l = (struct Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
		l->id = id + 1;
		l->mapping_id = k.mapping;
		l->address = k.addr;
		l->n_line = 1;
		l->line = xalloc(sizeof(*l->line));
		l->line[0] = ln;
		GROW(locs, nloc, caploc);
		locs[nloc++] = l;
	}
	return id + 1;
}

static struct Perftools__Profiles__Label *
label(const char *key, const char *str, int64_t num)
{
	struct Perftools__Profiles__Label *l = xalloc(sizeof(*l));

	*l = (struct Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
	l->key = str_id(key);
	if (str)
		l->str = str_id(str);
	else
		l->num = num;
	return l;
}

/*
 * pprof names a profile after its first mapping (its "main binary"): put
 * the objects before the kernel, each group in order of first sight.
 */
static void order_mappings(void)
{
	struct Perftools__Profiles__Mapping **v = xrealloc(NULL, (nmap ? nmap : 1) * sizeof(*v));
	uint64_t *newid = xrealloc(NULL, (nmap + 1) * sizeof(*newid));
	size_t i, n = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nmap; i++)
			if ((strs[maps[i]->filename][0] == '[') == pass) {
				newid[maps[i]->id] = n + 1;
				v[n++] = maps[i];
			}
	for (i = 0; i < nmap; i++)
		v[i]->id = i + 1;
	for (i = 0; i < nloc; i++)
		if (locs[i]->mapping_id)
			locs[i]->mapping_id = newid[locs[i]->mapping_id];
	if (nmap)
		memcpy(maps, v, nmap * sizeof(*v));
	free(v);
	free(newid);
}

static void write_gzip(FILE *f, const uint8_t *buf, size_t len)
{
	unsigned char out[1 << 16];
	z_stream z = { 0 };
	int rc;

	/* windowBits 15 + 16: a gzip header and trailer, as pprof expects */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		die("zlib: %s", z.msg ? z.msg : "deflateInit2 failed");
	z.next_in = (unsigned char *)buf;
	do {
		/* avail_in is 32 bits wide: feed a huge profile in slices */
		if (!z.avail_in && len) {
			z.avail_in = len > (1u << 30) ? 1u << 30 : len;
			len -= z.avail_in;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		rc = deflate(&z, len || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (rc == Z_STREAM_ERROR)
			die("zlib: deflate failed");
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
		    sizeof(out) - z.avail_out)
			die("write error");
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
}

/* The profile's sample types (one per event) and its distinct samples. */
struct pprof_samples {
	struct Perftools__Profiles__ValueType **types;
	uint64_t *per_type;	/* samples of each type */
	size_t ntype, capt, best;	/* best: the type with the most */
	struct Perftools__Profiles__Sample **samps;
	size_t nsamp, capsamp;
};

/* One sample type per event, in order of first sight. */
static void sample_types(struct pprof_samples *ps, const struct recs *r)
{
	for (size_t i = 0; i < r->ns; i++) {
		int added;
		uint32_t t = ktab_id(&typetab, &r->s[i].event,
				     sizeof(r->s[i].event), &added);

		if (added) {
			struct Perftools__Profiles__ValueType *vt = xalloc(sizeof(*vt));

			*vt = (struct Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
			vt->type = str_id(r->s[i].event);
			vt->unit = str_id("count");
			GROW(ps->types, ps->ntype, ps->capt);
			ps->per_type = xrealloc(ps->per_type,
						ps->capt * sizeof(*ps->per_type));
			ps->per_type[ps->ntype] = 0;
			ps->types[ps->ntype++] = vt;
		}
		ps->per_type[t]++;
	}
	for (size_t i = 0; i < ps->ntype; i++)
		if (ps->per_type[i] > ps->per_type[ps->best])
			ps->best = i;
}

/* A new distinct sample: its locations @loc (@n), a count of type @t. */
static void new_sample(struct pprof_samples *ps, const struct sample *s,
		       const uint64_t *loc, size_t n, uint32_t t)
{
	struct Perftools__Profiles__Sample *sp = xalloc(sizeof(*sp));

	*sp = (struct Perftools__Profiles__Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
	sp->n_location_id = n;
	sp->location_id = xalloc((n ? n : 1) * sizeof(*sp->location_id));
	memcpy(sp->location_id, loc, n * sizeof(*loc));
	sp->n_value = ps->ntype;
	sp->value = xalloc(ps->ntype * sizeof(*sp->value));
	sp->value[t] = 1;
	sp->n_label = 3;
	sp->label = xalloc(3 * sizeof(*sp->label));
	sp->label[0] = label("pid", NULL, s->pid);
	sp->label[1] = label("tid", NULL, s->tid);
	sp->label[2] = label("comm", s->comm, 0);
	GROW(ps->samps, ps->nsamp, ps->capsamp);
	ps->samps[ps->nsamp++] = sp;
}

/* Samples with the same thread, comm and locations are one, counted. */
static void add_samples(struct pprof_samples *ps, const struct recs *r,
			int lines)
{
	struct pframe *fr = NULL;
	uint64_t *ids = NULL;
	size_t capfr = 0, capids = 0, n;

	for (size_t i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];
		uint32_t t = ktab_id(&typetab, &s->event, sizeof(s->event), NULL);
		int added;
		uint32_t id;

		n = sample_frames(s, &fr, &capfr);
		/* key: pid, tid, comm, then the location ids */
		if (n + 3 > capids) {
			capids = n + 3;
			ids = xrealloc(ids, capids * sizeof(*ids));
		}
		ids[0] = s->pid;
		ids[1] = s->tid;
		ids[2] = (uintptr_t)s->comm;
		for (size_t j = 0; j < n; j++)
			ids[3 + j] = location_id(&fr[j], s, lines);
		id = ktab_id(&samptab, ids, (n + 3) * sizeof(*ids), &added);
		if (added)
			new_sample(ps, s, ids + 3, n, t);
		else
			ps->samps[id]->value[t]++;
	}
	free(fr);
	free(ids);
}

void output_pprof(FILE *f, const struct recs *r, const struct out_opts *o)
{
	struct Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct pprof_samples ps = { 0 };
	uint8_t *buf;
	size_t len;

	str_id("");		/* string_table[0] must be "" */
	sample_types(&ps, r);
	add_samples(&ps, r, o->lines);
	order_mappings();
	p.n_sample_type = ps.ntype;
	p.sample_type = ps.types;
	p.n_sample = ps.nsamp;
	p.sample = ps.samps;
	p.n_mapping = nmap;
	p.mapping = maps;
	p.n_location = nloc;
	p.location = locs;
	p.n_function = nfunc;
	p.function = funcs;
	if (r->ns) {
		p.default_sample_type = ps.types[ps.best]->type;
		p.duration_nanos = r->s[r->ns - 1].time - r->s[0].time;
	}
	p.n_string_table = nstr;
	p.string_table = strs;

	len = perftools__profiles__profile__get_packed_size(&p);
	buf = xrealloc(NULL, len);
	if (perftools__profiles__profile__pack(&p, buf) != len)
		die("pprof: encoding failed");
	write_gzip(f, buf, len);
	free(buf);
	free(ps.per_type);
}
