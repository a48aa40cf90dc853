/* prompt: the ':' command line: editing, history and completion (see prompt.h). */
#include "prompt.h"

#include <stdlib.h>
#include <string.h>

#include "keys.h"

#define PROMPT_CANDIDATES 64

static int is_continuation(char c)
{
	return ((unsigned char)c & 0xC0) == 0x80;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copies s into buf (XB_PROMPT_MAX bytes) as valid UTF-8 ('?' for bad bytes), cut at a
 * character boundary; returns the length. */
static size_t set_text(char *buf, const char *s)
{
	size_t n = 0, len = strlen(s);
	for (size_t i = 0; i < len;) {
		int c;
		int k = key_utf8(s + i, len - i, &c);
		if (k < 0 || !key_is_char(c)) {
			k = k < 0 ? 1 : k;
			if (n + 1 >= XB_PROMPT_MAX)
				break;
			buf[n++] = '?';
		} else {
			if (n + (size_t)k >= XB_PROMPT_MAX)
				break;
			memcpy(buf + n, s + i, (size_t)k);
			n += (size_t)k;
		}
		i += (size_t)k;
	}
	buf[n] = 0;
	return n;
}

void prompt_init(xb_prompt *p, xb_prompt_complete_fn complete, void *ctx)
{
	memset(p, 0, sizeof *p);
	p->complete = complete;
	p->complete_ctx = ctx;
}

void prompt_free(xb_prompt *p)
{
	for (size_t i = 0; i < p->nhistory; i++)
		free(p->history[i]);
	p->nhistory = p->hpos = 0;
	p->active = 0;
}

void prompt_open(xb_prompt *p, const char *initial)
{
	p->active = 1;
	p->len = p->cur = set_text(p->buf, initial ? initial : "");
	p->hpos = p->nhistory;
	p->saved[0] = 0;
	p->tab_count = 0;
}

static size_t prev_char(const xb_prompt *p, size_t at)
{
	while (at > 0 && is_continuation(p->buf[--at]))
		;
	return at;
}

static size_t next_char(const xb_prompt *p, size_t at)
{
	if (at >= p->len)
		return p->len;
	at++;
	while (at < p->len && is_continuation(p->buf[at]))
		at++;
	return at;
}

/* Removes bytes [from, to) of the line. */
static void cut(xb_prompt *p, size_t from, size_t to)
{
	memmove(p->buf + from, p->buf + to, p->len - to + 1);
	p->len -= to - from;
	if (p->cur >= to)
		p->cur -= to - from;
	else if (p->cur > from)
		p->cur = from;
}

static void insert(xb_prompt *p, int key)
{
	char u[8];
	size_t n;
	if (key < 0x80) {
		u[0] = (char)key;
		n = 1;
	} else if (key < 0x800) {
		u[0] = (char)(0xC0 | key >> 6);
		u[1] = (char)(0x80 | (key & 0x3F));
		n = 2;
	} else if (key < 0x10000) {
		u[0] = (char)(0xE0 | key >> 12);
		u[1] = (char)(0x80 | ((key >> 6) & 0x3F));
		u[2] = (char)(0x80 | (key & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | key >> 18);
		u[1] = (char)(0x80 | ((key >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((key >> 6) & 0x3F));
		u[3] = (char)(0x80 | (key & 0x3F));
		n = 4;
	}
	if (p->len + n >= XB_PROMPT_MAX)
		return;
	memmove(p->buf + p->cur + n, p->buf + p->cur, p->len - p->cur + 1);
	memcpy(p->buf + p->cur, u, n);
	p->len += n;
	p->cur += n;
}

static void load_line(xb_prompt *p, const char *s)
{
	p->len = p->cur = set_text(p->buf, s);
}

static void history_add(xb_prompt *p)
{
	if (!p->len)
		return;
	if (p->nhistory && strcmp(p->history[p->nhistory - 1], p->buf) == 0)
		return;
	if (p->nhistory == XB_PROMPT_HISTORY) {
		free(p->history[0]);
		memmove(p->history, p->history + 1, (XB_PROMPT_HISTORY - 1) * sizeof *p->history);
		p->nhistory--;
	}
	p->history[p->nhistory++] = xstrdup(p->buf);
}

static void history_move(xb_prompt *p, int older)
{
	if (older) {
		if (p->hpos == 0)
			return;
		if (p->hpos == p->nhistory)
			memcpy(p->saved, p->buf, p->len + 1);
		p->hpos--;
		load_line(p, p->history[p->hpos]);
	} else {
		if (p->hpos >= p->nhistory)
			return;
		p->hpos++;
		load_line(p, p->hpos == p->nhistory ? p->saved : p->history[p->hpos]);
	}
}

/* Puts text in place of the word [ws, cur) of the line; nothing when it does not fit. */
static void replace_word(xb_prompt *p, size_t ws, const char *text, int blank_after)
{
	char line[XB_PROMPT_MAX];
	const char *tail = p->buf + p->cur;
	size_t tn = strlen(text), rest = strlen(tail);
	int add = blank_after && !is_blank(*tail);
	if (ws + tn + (size_t)add + rest >= XB_PROMPT_MAX)
		return;
	memcpy(line, p->tab_base, ws);
	memcpy(line + ws, text, tn);
	if (add)
		line[ws + tn] = ' ';
	memcpy(line + ws + tn + (size_t)add, tail, rest + 1);
	memcpy(p->buf, line, ws + tn + (size_t)add + rest + 1);
	p->len = ws + tn + (size_t)add + rest;
	p->cur = ws + tn + (blank_after ? 1 : 0);
	if (p->cur > p->len)
		p->cur = p->len;
}

static void complete(xb_prompt *p)
{
	if (!p->complete)
		return;
	if (p->tab_count == 0) {
		memcpy(p->tab_base, p->buf, p->cur);
		p->tab_base[p->cur] = 0;
	}
	size_t base = strlen(p->tab_base), ws = base;
	while (ws > 0 && !is_blank(p->tab_base[ws - 1]))
		ws--;
	const char *word = p->tab_base + ws;
	size_t wl = base - ws;
	const char *cand[PROMPT_CANDIDATES], *match[PROMPT_CANDIDATES];
	size_t n = p->complete(p->complete_ctx, p->tab_base, ws, cand, PROMPT_CANDIDATES);
	if (n > PROMPT_CANDIDATES)
		n = PROMPT_CANDIDATES;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!cand[i] || strncmp(cand[i], word, wl) != 0)
			continue;
		size_t j = 0;
		while (j < m && strcmp(match[j], cand[i]) != 0)
			j++;
		if (j == m)
			match[m++] = cand[i];
	}
	if (m == 0) {
		p->tab_count = 0;
		return;
	}
	if (m == 1) {
		replace_word(p, ws, match[0], 1);
		p->tab_count = 0;
		return;
	}
	p->tab_count++;
	size_t k = (p->tab_count - 1) % (m + 1);
	char typed[XB_PROMPT_MAX];
	memcpy(typed, word, wl + 1);
	replace_word(p, ws, k < m ? match[k] : typed, 0);
}

int prompt_key(xb_prompt *p, int key)
{
	if (!p->active)
		return XB_PROMPT_EDITING;
	if (key != XB_KEY_TAB)
		p->tab_count = 0;
	switch (key) {
	case XB_KEY_ENTER:
		history_add(p);
		p->hpos = p->nhistory;
		p->active = 0;
		return XB_PROMPT_DONE;
	case XB_KEY_ESC:
	case 'C' - '@':
		p->active = 0;
		return XB_PROMPT_CANCELLED;
	case XB_KEY_BACKSPACE:
	case 'H' - '@':
		if (!p->len) {
			p->active = 0;
			return XB_PROMPT_CANCELLED;
		}
		if (p->cur)
			cut(p, prev_char(p, p->cur), p->cur);
		break;
	case XB_KEY_DELETE:
		cut(p, p->cur, next_char(p, p->cur));
		break;
	case 'W' - '@': {
		size_t at = p->cur;
		while (at > 0 && is_blank(p->buf[at - 1]))
			at--;
		while (at > 0 && !is_blank(p->buf[at - 1]))
			at--;
		cut(p, at, p->cur);
		break;
	}
	case 'U' - '@':
		cut(p, 0, p->cur);
		break;
	case 'K' - '@':
		cut(p, p->cur, p->len);
		break;
	case XB_KEY_LEFT:
		p->cur = prev_char(p, p->cur);
		break;
	case XB_KEY_RIGHT:
		p->cur = next_char(p, p->cur);
		break;
	case XB_KEY_HOME:
	case 'A' - '@':
		p->cur = 0;
		break;
	case XB_KEY_END:
	case 'E' - '@':
		p->cur = p->len;
		break;
	case XB_KEY_UP:
		history_move(p, 1);
		break;
	case XB_KEY_DOWN:
		history_move(p, 0);
		break;
	case XB_KEY_TAB:
		complete(p);
		break;
	default:
		if (key_is_char(key))
			insert(p, key);
		break;
	}
	return XB_PROMPT_EDITING;
}

/* Characters (code points) in buf[0..n). */
static int chars_in(const char *buf, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		if (!is_continuation(buf[i]))
			k++;
	return k;
}

int prompt_draw(const xb_prompt *p, xb_canvas *c, int x, int y, int w)
{
	if (w <= 0)
		return x;
	for (int i = 0; i < w; i++)
		canvas_put(c, x + i, y, ' ', XB_EL_PROMPT);
	int avail = w - 1;
	int ci = chars_in(p->buf, p->cur);
	int off = 0;
	if (avail > 0 && ci >= avail) {
		int step = avail / 2 > 0 ? avail / 2 : 1;
		off = ((ci - avail) / step + 1) * step;
	}
	canvas_put(c, x, y, off > 0 ? '<' : ':', XB_EL_PROMPT);
	if (avail <= 0)
		return x;
	size_t i = 0;
	for (int skip = off; skip > 0 && i < p->len; skip--) {
		i++;
		while (i < p->len && is_continuation(p->buf[i]))
			i++;
	}
	for (int col = 0; col < avail && i < p->len; col++) {
		int ch;
		int k = key_utf8(p->buf + i, p->len - i, &ch);
		if (k < 0) {
			ch = '?';
			k = 1;
		}
		canvas_put(c, x + 1 + col, y, (uint32_t)ch, XB_EL_PROMPT);
		i += (size_t)k;
	}
	return x + 1 + ci - off;
}
