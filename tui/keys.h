/* keys: key codes, their names ("q", "<Tab>", "<C-l>", "<F1>"), and key scripts (--keys
 * FILE: keys and ':' commands fed through the real input path, for headless and scripted
 * use). No curses here. */
#ifndef XB_TUI_KEYS_H
#define XB_TUI_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

/* A key is a Unicode code point (printable characters; control characters 1..31 for
 * Ctrl-A .. Ctrl-_, 127 is XB_KEY_BACKSPACE) or one of these. */
enum {
	XB_KEY_NONE = 0,
	XB_KEY_TAB = 9,
	XB_KEY_ENTER = 13,
	XB_KEY_ESC = 27,
	XB_KEY_BACKSPACE = 127,
	XB_KEY_UP = 0x110000,
	XB_KEY_DOWN,
	XB_KEY_LEFT,
	XB_KEY_RIGHT,
	XB_KEY_PAGE_UP,
	XB_KEY_PAGE_DOWN,
	XB_KEY_HOME,
	XB_KEY_END,
	XB_KEY_INSERT,
	XB_KEY_DELETE,
	XB_KEY_BACKTAB,
	XB_KEY_F1, /* .. XB_KEY_F1 + 11 for F12 */
	XB_KEY_F12 = XB_KEY_F1 + 11,
	XB_KEY_RESIZE, /* the terminal changed size (not a key a script may name) */
	XB_KEY_MOUSE,  /* a mouse event is waiting (term_mouse) */
	XB_KEY_LAST
};

/* The key's name as scripts and the help screen write it: a printable ASCII character
 * as itself ("q", "?", "/"), except space "<Space>" and '<' "<lt>"; other printable
 * characters as themselves (UTF-8); "<Tab>", "<Enter>", "<Esc>", "<BS>", "<Up>", "<Down>",
 * "<Left>", "<Right>", "<PageUp>", "<PageDown>", "<Home>", "<End>", "<Insert>", "<Del>",
 * "<S-Tab>", "<F1>" .. "<F12>", "<C-a>" .. "<C-z>" for control characters (Ctrl-I, -J,
 * -M, -[ are Tab, Enter, Enter, Esc; Ctrl-\ .. Ctrl-_ are "<C-\>" .. "<C-_>");
 * "<Resize>" and "<Mouse>" for the two events (in logs; scripts cannot send them). Others
 * (XB_KEY_NONE, an invalid code) are written as "<0xHEX>", which does not parse.
 * Written to buf (at least 16 bytes); returns buf. */
const char *key_name(int key, char *buf, size_t cap);

/* A printable character (what typing inserts into text): a code point from U+0020 that
 * is not DEL, a C1 control, a surrogate or above U+10FFFF. */
int key_is_char(int key);

/* Decodes one UTF-8 character from s (n bytes available) into *cp: its length (1..4), or
 * -1 when s does not start with valid UTF-8 (a stray or missing continuation byte, an
 * overlong form, a surrogate, above U+10FFFF, n == 0). */
int key_utf8(const char *s, size_t n, int *cp);

/* Parses one key at s (a name as above, case-insensitive inside <>, or one printable
 * UTF-8 character): *key and *len (bytes used). Also taken: <CR>, <Return>, <Escape>,
 * <Backspace>, <Delete>, <PgUp>, <PgDn>, <gt>, <Colon> and <Hash> (':' or '#' first on
 * a script line would start a command or a comment), <C-A> as <C-a>. -1 when s does not
 * start with a key (an unknown <Name>, an unterminated '<', invalid UTF-8, a control
 * byte). s is NUL-terminated. */
int key_parse(const char *s, int *key, size_t *len);

/* ---- Key scripts ---- */

/*
 * A script is text, one item per line:
 *   # a comment            (whole line; blank lines are ignored)
 *   :COMMAND ARGS          a ':' command, exactly as typed at the prompt
 *   KEYS                   keys one after another: characters and <Names>; blanks
 *                          between them are ignored (a space key is <Space>)
 * Blanks at the start and end of a line (and a CR before the newline) do not count.
 * Lines are at most 1024 bytes; bytes other than printable UTF-8 and tabs are errors.
 * check (may be NULL) validates each command when the script is read: it returns 0, or
 * -1 with a reason in why ("unknown command 'foo'"), and the script fails with
 * "FILE:LINE: reason".
 */
typedef struct xb_script_item {
	int key;        /* a key, or XB_KEY_NONE for a command */
	char *command;  /* the command without ':' (NULL for a key) */
	unsigned line;  /* the line it came from */
} xb_script_item;

typedef struct xb_script {
	char *name;
	xb_script_item *items;
	size_t n;
} xb_script;

typedef int (*xb_script_check_fn)(void *ctx, const char *command, char *why, size_t cap);

/* Parses text (len bytes, name for messages). On failure s is empty and err says
 * "NAME:LINE: what" (an unknown key name quotes it, a bad byte gives its column). */
int script_parse(xb_script *s, const char *name, const char *text, size_t len,
		 xb_script_check_fn check, void *ctx, xb_err *err);
/* The same for the file at path (the path is the name in messages). */
int script_load(xb_script *s, const char *path, xb_script_check_fn check, void *ctx,
		xb_err *err);
void script_free(xb_script *s);

#endif
