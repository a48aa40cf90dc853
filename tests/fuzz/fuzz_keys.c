/* fuzz_keys: key scripts and key names on arbitrary bytes: no crash, no leak; a parsed
 * script holds only keys a script may send and commands the check accepted; every key's
 * name parses back to it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tui/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Accepts the commands the workbench has a few of, and anything with an argument. */
static int check(void *ctx, const char *command, char *why, size_t cap)
{
	(void)ctx;
	static const char *const known[] = {"quit", "help", "set", "sort", "filter"};
	size_t n = strcspn(command, " ");
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strlen(known[i]) == n && strncmp(known[i], command, n) == 0)
			return 0;
	if (n > 40 || command[n]) /* a long word, or one with an argument: no reason given */
		return -1;
	snprintf(why, cap, "unknown command '%s'", command);
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_script s;
	xb_err err;
	if (script_parse(&s, "fuzz.keys", (const char *)data, size, check, NULL, &err) == 0) {
		for (size_t i = 0; i < s.n; i++) {
			const xb_script_item *it = &s.items[i];
			if (it->line == 0)
				abort();
			if (it->command) {
				if (it->key != XB_KEY_NONE || check(NULL, it->command, err.msg, 8))
					abort();
				continue;
			}
			if (it->key == XB_KEY_NONE || it->key == XB_KEY_RESIZE ||
			    it->key == XB_KEY_MOUSE || it->key < 0 || it->key >= XB_KEY_LAST)
				abort();
			char name[32];
			int k;
			size_t len;
			key_name(it->key, name, sizeof name);
			if (key_parse(name, &k, &len) || len != strlen(name) ||
			    k != (it->key == '\n' ? XB_KEY_ENTER : it->key))
				abort();
		}
		script_free(&s);
	} else if (s.n || s.items || s.name || strncmp(err.msg, "fuzz.keys:", 10) != 0) {
		abort();
	}
	/* one key at the start of the input, as text */
	char buf[64];
	size_t n = size < sizeof buf - 1 ? size : sizeof buf - 1;
	memcpy(buf, data, n);
	buf[n] = 0;
	int k;
	size_t len;
	if (key_parse(buf, &k, &len) == 0 && (len == 0 || len > n || k == XB_KEY_NONE))
		abort();
	return 0;
}
