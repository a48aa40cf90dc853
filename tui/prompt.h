/* prompt: the ':' command line (tig and vim style): editing, history, completion from a
 * list of words, drawn into the canvas's last row. No curses here. */
#ifndef XB_TUI_PROMPT_H
#define XB_TUI_PROMPT_H

#include <stddef.h>

#include "../panels/canvas.h"

#define XB_PROMPT_MAX 512     /* bytes of a command line */
#define XB_PROMPT_HISTORY 64  /* lines remembered */

/* Completion: the words that may follow what is typed (command names, then a command's
 * arguments: panel names, themes, sort fields ...); fn(ctx, line, word_start, out, max)
 * puts up to max candidates (static or owned by ctx) for the word that starts at byte
 * word_start of line, and returns how many. line is the text before the cursor, so the
 * word is line + word_start; candidates that do not start with it are skipped. */
typedef size_t (*xb_prompt_complete_fn)(void *ctx, const char *line, size_t word_start,
					const char **out, size_t max);

typedef struct xb_prompt {
	int active;
	char buf[XB_PROMPT_MAX];
	size_t len, cur;         /* bytes; cur is a byte offset at a character boundary */
	char *history[XB_PROMPT_HISTORY];
	size_t nhistory, hpos;   /* hpos == nhistory: editing a new line */
	char saved[XB_PROMPT_MAX]; /* the new line while browsing history */
	xb_prompt_complete_fn complete;
	void *complete_ctx;
	unsigned tab_count;      /* successive Tabs cycle through the candidates */
	char tab_base[XB_PROMPT_MAX];
} xb_prompt;

enum { XB_PROMPT_EDITING = 0, XB_PROMPT_DONE, XB_PROMPT_CANCELLED };

void prompt_init(xb_prompt *p, xb_prompt_complete_fn complete, void *ctx);
void prompt_free(xb_prompt *p);
/* Opens the prompt with initial text (NULL: empty), cursor at the end. */
void prompt_open(xb_prompt *p, const char *initial);
/*
 * One key (tui/keys.h): printable characters insert; <Left>/<Right>/<Home>/<End>, <C-a>,
 * <C-e> move; <BS> (or <C-h>), <Del>, <C-w> (word), <C-u> (to the start), <C-k> (to the
 * end) delete; <Up>/<Down> browse the history; <Tab> completes the word before the
 * cursor: one candidate is put in with a blank after it; with several, each <Tab> puts
 * in the next and after the last the word as typed comes back; <Enter> returns
 * XB_PROMPT_DONE with the line in p->buf (added to the history when not empty and not the
 * same as the last); <Esc> or <C-c> (or <BS> on an empty line) returns
 * XB_PROMPT_CANCELLED. Both close the prompt. Other keys are ignored.
 */
int prompt_key(xb_prompt *p, int key);
/* Draws ":" and the line into row y of c (from x, w columns, with XB_EL_PROMPT), scrolled
 * by half widths so that the cursor shows (the ':' becomes '<' when the start of the line
 * is out of sight); returns the cursor's column (for the terminal cursor). */
int prompt_draw(const xb_prompt *p, xb_canvas *c, int x, int y, int w);

#endif
