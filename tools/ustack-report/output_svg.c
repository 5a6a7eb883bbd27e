// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: a self-contained SVG flame graph in the manner of
 * flamegraph.pl: root at the bottom, children sorted by name, width by
 * samples; inline JavaScript for details on hover, click to zoom, reset,
 * and regex search (button or Ctrl-F) with the matched share.  URL
 * parameters ?s=REGEX (search) and ?f=NAME (zoom to the widest frame NAME)
 * apply on load.  User frames are warm, kernel frames blue-green, the
 * "[no user stack]" mark grey; frames found by stack scanning (method
 * guess) pale violet with a dashed outline, named "? <function>".  All text is XML-escaped and valid UTF-8.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define FRAME_H		16
#define FONT_SIZE	12
#define FONT_W		0.59
#define XPAD		10
#define YPAD1		(FONT_SIZE * 3)
#define YPAD2		(FONT_SIZE * 2 + 10)
#define MIN_W		0.1

struct node {
	const char *name;
	uint8_t kind;
	uint64_t count;
	struct node *child, *last, *next;
};

static const char *entity(char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	default:
		return "&apos;";
	}
}

/* Write at most max characters of s, XML-escaped; returns chars written. */
static size_t esc(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, chars = 0;

	while (i < n && chars < max) {
		size_t l = utf8_len(s + i, n - i);

		chars++;
		if (!l) {
			fputc('?', f);
			i++;
			continue;
		}
		if (l > 1)
			fwrite(s + i, 1, l, f);
		else if (strchr("&<>\"'", s[i]))
			fputs(entity(s[i]), f);
		else
			fputc(s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], f);
		i += l;
	}
	return chars;
}

static size_t nchars(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, c = 0;

	while (i < n) {
		size_t l = utf8_len(s + i, n - i);

		i += l ? l : 1;
		c++;
	}
	return c;
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void color(const struct node *nd, int *r, int *g, int *b)
{
	uint32_t h = hash_name(nd->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;

	switch (nd->kind) {
	case FK_KERNEL:
		*r = 50 + 60 * v1;
		*g = 165 + 55 * v2;
		*b = 165 + 55 * v2;
		break;
	case FK_GUESS:		/* pale violet, dashed: not a fact */
		*r = 200 + 30 * v1;
		*g = 190 + 30 * v1;
		*b = 235 + 20 * v2;
		break;
	case FK_MARK:
	case FK_ROOT:
		*r = *g = *b = 160 + 40 * v1;
		break;
	default:		/* hot */
		*r = 205 + 50 * v2;
		*g = 230 * v1;
		*b = 55 * v2;
	}
}

struct layout {
	FILE *f;
	uint64_t total;
	double scale;
	int height;
};

static void emit(struct layout *L, const struct node *nd, uint64_t start,
		 int depth)
{
	double x = XPAD + start * L->scale, w = nd->count * L->scale;
	double y = L->height - YPAD2 - (depth + 1) * FRAME_H;
	size_t fit = w / (FONT_SIZE * FONT_W);
	const struct node *c;
	int r, g, b;

	if (w < MIN_W)
		return;
	color(nd, &r, &g, &b);
	fprintf(L->f, "<g data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\"><title>",
		start, nd->count);
	esc(L->f, nd->name, (size_t)-1);
	fprintf(L->f, " (%" PRIu64 " sample%s, %.2f%%)</title>", nd->count,
		nd->count == 1 ? "" : "s", 100.0 * nd->count / L->total);
	fprintf(L->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"%s/>", x, y, w,
		FRAME_H - 1, r, g, b, nd->kind == FK_GUESS ?
		" class=\"guess\" stroke=\"rgb(90,60,160)\" "
		"stroke-dasharray=\"3,2\"" : "");
	fprintf(L->f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 10.5);
	if (fit >= 3) {
		if (nchars(nd->name) <= fit) {
			esc(L->f, nd->name, (size_t)-1);
		} else {
			esc(L->f, nd->name, fit - 2);
			fputs("..", L->f);
		}
	}
	fputs("</text></g>\n", L->f);
	for (c = nd->child; c; c = c->next) {
		emit(L, c, start, depth + 1);
		start += c->count;
	}
}

static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var svg, details, matchedtxt, unzoombtn, frames, W, PAD = 10, TOTAL;\n"
"var FS = 12, FW = 0.59, searching = null;\n"
"function init(evt) {\n"
"  svg = document.documentElement;\n"
"  details = document.getElementById('details').firstChild;\n"
"  matchedtxt = document.getElementById('matched');\n"
"  unzoombtn = document.getElementById('unzoom');\n"
"  W = parseFloat(svg.getAttribute('width'));\n"
"  frames = Array.prototype.slice.call(\n"
"    document.getElementById('frames').getElementsByTagName('g'));\n"
"  frames.forEach(function (g) {\n"
"    var r = g.querySelector('rect'), t = g.querySelector('title').textContent;\n"
"    g.ox = parseFloat(r.getAttribute('x'));\n"
"    g.ow = parseFloat(r.getAttribute('width'));\n"
"    g.oy = parseFloat(r.getAttribute('y'));\n"
"    g.s = parseFloat(g.getAttribute('data-s'));\n"
"    g.n = parseFloat(g.getAttribute('data-n'));\n"
"    g.ofill = r.getAttribute('fill');\n"
"    g.fname = t.substring(0, t.lastIndexOf(' ('));\n"
"    g.addEventListener('mouseover', function () { details.nodeValue = t; });\n"
"    g.addEventListener('mouseout', function () { details.nodeValue = ' '; });\n"
"    g.addEventListener('click', function (e) { zoom(g); e.stopPropagation(); });\n"
"  });\n"
"  TOTAL = frames.length ? frames[0].n : 1;\n"
"  unzoombtn.addEventListener('click', unzoom);\n"
"  document.getElementById('search').addEventListener('click', search_prompt);\n"
"  document.getElementById('reset').addEventListener('click', reset_search);\n"
"  window.addEventListener('keydown', function (e) {\n"
"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search_prompt(); }\n"
"    if (e.key === 'Escape') { reset_search(); unzoom(); }\n"
"  });\n"
"  var p = new URLSearchParams(window.location.search);\n"
"  if (p.get('f')) {\n"
"    var best = null;\n"
"    frames.forEach(function (g) { if (g.fname === p.get('f') && (!best || g.ow > best.ow)) best = g; });\n"
"    if (best) zoom(best);\n"
"  }\n"
"  if (p.get('s')) search(p.get('s'));\n"
"}\n"
"function fit_text(g) {\n"
"  var t = g.querySelector('text'), r = g.querySelector('rect');\n"
"  var w = parseFloat(r.getAttribute('width'));\n"
"  t.setAttribute('x', parseFloat(r.getAttribute('x')) + 3);\n"
"  var n = Math.floor(w / (FS * FW));\n"
"  if (n < 3) { t.textContent = ''; return; }\n"
"  t.textContent = g.fname.length <= n ? g.fname : g.fname.substring(0, n - 2) + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect');\n"
"  r.setAttribute('x', x.toFixed(1));\n"
"  r.setAttribute('width', w.toFixed(1));\n"
"  g.style.display = '';\n"
"  fit_text(g);\n"
"}\n"
"function zoom(node) {\n"
"  var s0 = node.s, n0 = node.n, y0 = node.oy;\n"
"  var ratio = (W - 2 * PAD) / n0;\n"
"  unzoombtn.style.opacity = '1';\n"
"  frames.forEach(function (g) {\n"
"    var inside = g.s >= s0 && g.s + g.n <= s0 + n0;\n"
"    var covers = g.s <= s0 && g.s + g.n >= s0 + n0;\n"
"    g.classList.remove('parent');\n"
"    if (g.oy > y0 && covers) {\n"
"      place(g, PAD, W - 2 * PAD);\n"
"      g.classList.add('parent');\n"
"    } else if (g.oy <= y0 && inside) {\n"
"      place(g, PAD + (g.s - s0) * ratio, g.n * ratio);\n"
"    } else {\n"
"      g.style.display = 'none';\n"
"    }\n"
"  });\n"
"  svg.setAttribute('data-zoomed', node.fname);\n"
"  if (searching) search(searching);\n"
"}\n"
"function unzoom() {\n"
"  unzoombtn.style.opacity = '0';\n"
"  frames.forEach(function (g) {\n"
"    g.classList.remove('parent');\n"
"    place(g, g.ox, g.ow);\n"
"  });\n"
"  svg.removeAttribute('data-zoomed');\n"
"  if (searching) search(searching);\n"
"}\n"
"function search_prompt() {\n"
"  var term = prompt('Search for (regular expression):', searching || '');\n"
"  if (term) search(term);\n"
"}\n"
"function reset_search() {\n"
"  searching = null;\n"
"  frames.forEach(function (g) { g.querySelector('rect').setAttribute('fill', g.ofill); });\n"
"  matchedtxt.textContent = ' ';\n"
"  document.getElementById('reset').style.opacity = '0';\n"
"}\n"
"function search(term) {\n"
"  var re;\n"
"  try { re = new RegExp(term); } catch (e) { return; }\n"
"  searching = term;\n"
"  var spans = [], total = 0, end = -1;\n"
"  frames.forEach(function (g) {\n"
"    var r = g.querySelector('rect');\n"
"    if (re.test(g.fname)) {\n"
"      r.setAttribute('fill', 'rgb(230,0,230)');\n"
"      if (g.style.display !== 'none') spans.push(g);\n"
"    } else {\n"
"      r.setAttribute('fill', g.ofill);\n"
"    }\n"
"  });\n"
"  /* samples under any match, nested matches counted once */\n"
"  spans.sort(function (a, b) { return a.s - b.s || b.n - a.n; });\n"
"  spans.forEach(function (g) {\n"
"    if (g.s >= end) { total += g.n; end = g.s + g.n; }\n"
"    else if (g.s + g.n > end) { total += g.s + g.n - end; end = g.s + g.n; }\n"
"  });\n"
"  matchedtxt.textContent = 'Matched: ' + (100 * total / TOTAL).toFixed(1) + '%';\n"
"  document.getElementById('reset').style.opacity = '1';\n"
"}\n"
"]]></script>\n";

void output_svg(FILE *f, const struct recs *r, const struct out_opts *o)
{
	size_t n, i;
	struct fstack *v = stacks_build(r, &n);
	struct node root = { .name = "all", .kind = FK_ROOT };
	struct layout L = { .f = f };
	int width = o->width > 200 ? o->width : 1200, maxd = 0;

	for (i = 0; i < n; i++) {
		struct node *cur = &root;
		uint32_t j;

		root.count += v[i].count;
		if ((int)v[i].n > maxd)
			maxd = v[i].n;
		for (j = 0; j < v[i].n; j++) {
			struct node *c = cur->last;

			if (!c || c->name != v[i].name[j]) {
				c = xalloc(sizeof(*c));
				c->name = v[i].name[j];
				c->kind = v[i].kind[j];
				if (cur->last)
					cur->last->next = c;
				else
					cur->child = c;
				cur->last = c;
			}
			c->count += v[i].count;
			cur = c;
		}
	}
	L.total = root.count ? root.count : 1;
	L.scale = (double)(width - 2 * XPAD) / L.total;
	L.height = (maxd + 1) * FRAME_H + YPAD1 + YPAD2;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
		"onload=\"init(evt)\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
		width, L.height, width, L.height);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	      "#title { text-anchor: middle; font-size: 17px; }\n"
	      "#search, #reset, #unzoom { cursor: pointer; }\n"
	      "#frames > g { cursor: pointer; }\n"
	      "#frames > g:hover > rect { stroke: black; stroke-width: 0.5; }\n"
	      ".parent { opacity: 0.5; }\n"
	      "</style>\n", f);
	fputs(script, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"rgb(248,248,240)\"/>\n", width, L.height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", width / 2);
	esc(f, o->title ? o->title : "ustack flame graph", (size_t)-1);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"opacity:0\">"
		"Reset Zoom</text>\n", XPAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n",
		width - XPAD - 100);
	fprintf(f, "<text id=\"reset\" x=\"%d\" y=\"24\" style=\"opacity:0\">"
		"Reset Search</text>\n", width - XPAD - 200);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		width - XPAD - 100, L.height - 17);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD,
		L.height - 17);
	fputs("<g id=\"frames\">\n", f);
	if (root.count)
		emit(&L, &root, 0, 0);
	fputs("</g>\n</svg>\n", f);
}
