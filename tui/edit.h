/* edit: what the workbench's layout loop keeps (tui/edit.c) and its actions
 * (tui/edit_actions.c) share. Not for use outside tui/. */
#ifndef XB_TUI_EDIT_H
#define XB_TUI_EDIT_H

#include "../core/layout_edit.h"
#include "../core/setmap.h"
#include "../session/builder.h"
#include "../session/editloop.h"

struct app_edit {
	xb_editloop *loop;
	xb_builder builder;
	int have_builder;
	char *build_command, *flash_command, *work, *history;
	xb_editor *ed;
	unsigned heat_version;   /* the loop's inputs the editor's heat was made from */
	char why_not[600];       /* why there is no editor */
	/* the pending layout's prediction and set map, made again when it changes */
	uint64_t pending_key;
	int have_pending_key;
	xb_prediction pending;
	xb_setmap pending_sets;
	int have_pending_sets;
	/* the flashed image as the model shows it */
	char flashed_name[64];
	/* the history's runs */
	unsigned history_version;
	int history_read;
	xb_run **runs;
	size_t nruns;
	char progress[256], result[512];
};

#endif
