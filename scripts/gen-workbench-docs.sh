#!/bin/sh
# gen-workbench-docs: the generated parts of docs/workbench.md and the man page
# docs/xipbench.1, from the workbench's own tables (`xipbench workbench --list ...`) and,
# for the screens, from a headless run on the virtual Pico (measured: about 30 s).
#
#   sh scripts/gen-workbench-docs.sh [BUILD]            write both (tables and screens)
#   sh scripts/gen-workbench-docs.sh [BUILD] --tables   the tables only (no run)
#   sh scripts/gen-workbench-docs.sh [BUILD] --check    exit 1 when the tables are stale
set -eu
cd "$(dirname "$0")/.."
BUILD=build
MODE=all
for a in "$@"; do
	case $a in
	--tables) MODE=tables ;;
	--check) MODE=check ;;
	*) BUILD=$a ;;
	esac
done
XB=${XIPBENCH:-$BUILD/xipbench}
DOC=docs/workbench.md
MAN=docs/xipbench.1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/xb-docs.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# replace FILE NAME CONTENT-FILE: the lines between "<!-- generated: NAME -->" and the next
# "<!-- end -->" become the content.
replace() {
	awk -v name="$2" -v content="$3" '
		$0 == "<!-- generated: " name " -->" { print; while ((getline l < content) > 0) print l;
			skip = 1; next }
		skip && $0 == "<!-- end -->" { skip = 0 }
		!skip { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}

cp "$DOC" "$TMP/doc.md"
for what in actions options elements statuses; do
	"$XB" workbench --list "$what" >"$TMP/$what.md"
	{ echo; cat "$TMP/$what.md"; echo; } >"$TMP/$what.block"
	replace "$TMP/doc.md" "$what" "$TMP/$what.block"
done

# the man page's lists, from the same tables: ".TP" paragraphs
roff_actions() {
	"$XB" workbench --list actions | awk -F' \\| ' '
		/^\*\*/ { gsub(/\*/, ""); printf ".SS %s\n", $0; next }
		/^\| `/ { keys = $1; sub(/^\| /, "", keys); cmd = $2; help = $3; sub(/ \|$/, "", help)
			gsub(/`/, "", keys); gsub(/`/, "", cmd); gsub(/\\\|/, "|", cmd)
			gsub(/\\\|/, "|", help); gsub(/\\/, "\\\\", cmd)
			printf ".TP\n.B %s\n%s%s\n", cmd, keys != "" ? "(" keys ") " : "", help }
		/^\|  \| `/ { cmd = $2; help = $3; sub(/ \|$/, "", help); gsub(/`/, "", cmd)
			gsub(/\\\|/, "|", cmd); gsub(/\\\|/, "|", help)
			printf ".TP\n.B %s\n%s\n", cmd, help }'
}
roff_options() {
	"$XB" workbench --list options | awk -F' \\| ' '
		/^\| `--/ { opt = $1; sub(/^\| /, "", opt); gsub(/`/, "", opt); val = $2; gsub(/\\\|/, "|", val)
			def = $3; help = $5; sub(/ \|$/, "", help); gsub(/\\\|/, "|", help)
			gsub(/-/, "\\-", opt)
			printf ".TP\n.BI \"%s \" \"%s\"\n%s%s\n", opt, val, help, def != "" ? " (default " def ")" : "" }'
}

cat >"$TMP/man" <<'EOF'
.\" xipbench(1): made by scripts/gen-workbench-docs.sh from the workbench's own tables.
.TH XIPBENCH 1 "" "xipbench" "User Commands"
.SH NAME
xipbench \- the code-layout workbench for firmware that runs from cached flash
.SH SYNOPSIS
.B xipbench
.br
.B xipbench workbench
.RI [ options ]
.br
.B xipbench demo
.RI [ options ]
.br
.B xipbench
.I command
.RI [ options ]
.SH DESCRIPTION
.B xipbench
alone, in a terminal, opens the workbench on the virtual Pico (an RP2040 emulator with
its XIP cache, USB device controller, SWD port and a virtual CMSIS-DAP probe) running the
demo echo firmware, built the first time into
.IR ~/.cache/xipbench/firmware .
The workbench shows where the core spends its time (PC samples per library, function and
8-byte line), which of the 1,024 XIP cache sets the hot code crowds, and what the board
answers (turnaround, echo rate, XIP misses per echo), live, with pings and UDP echoes
running. With
.B \-\-elf
it runs another image, with
.B \-\-zephyr
or
.B \-\-pico\-sdk
the image of a build folder (relinked with the folder's own command); with
.B \-\-bench probe
it works on a real board behind a CMSIS-DAP probe.
.PP
In the workbench the study's loop is one key: record the planning profile
.RB ( P ),
edit the pending layout in the layout panel (functions to SRAM, into the hot block,
coloured, pinned; presets from the planners; budgets; undo), then
.B R
relinks it (the demo firmware's Makefile, the build folder's command, or
.BR \-\-build\-command ),
verifies every function's address against the plan before anything is flashed, flashes
the board in place, measures it by the study's method and records the run in the history
(SQLite), shown beside the others in the compare panel. A failed build, link or
verification keeps the last good image running.
.B xipbench demo
plays the study step by step with captions whose figures are the measured ones.
.PP
The batch commands (info, plan, predict, verify, integrate, cache, sim, capture, probe,
experiment, report, triage; sim serve can put the virtual host's Ethernet on a TAP interface in a
network namespace, sim measure measures a board from outside) are
described by
.B xipbench
.I command
.BR \-\-help
and in docs/cli.md; the workbench in docs/workbench.md.
.SH OPTIONS
Options of
.BR "xipbench workbench" ;
they can also be set in the config file (see FILES) as
.I NAME = VALUE
lines.
EOF
roff_options >>"$TMP/man"
cat >>"$TMP/man" <<'EOF'
.SH KEYS AND COMMANDS
Every key runs a
.B :
command; every command can be typed at the
.B :
prompt or put in a key script
.RB ( \-\-keys ).
EOF
roff_actions >>"$TMP/man"
cat >>"$TMP/man" <<'EOF'
.SH ENVIRONMENT
.TP
.B NO_COLOR
when set, the workbench draws without colours (the mono theme).
.TP
.B XDG_CONFIG_HOME, XDG_CACHE_HOME
where the config file, your themes and the demo firmware's build go (default
.I ~/.config
and
.IR ~/.cache ).
.SH FILES
.TP
.I ~/.config/xipbench/config
options, one
.I NAME = VALUE
per line.
.TP
.I ~/.config/xipbench/themes/NAME.theme
your themes (docs/workbench.md, "Themes").
.SH EXIT STATUS
0 done; 1 the bench or the image could not be used, or a key script's wait timed out;
2 usage error. A crash signal restores the terminal and is raised again.
.SH SEE ALSO
docs/workbench.md, docs/cli.md, tmux(1)
EOF

if [ "$MODE" = check ]; then
	status=0
	cmp -s "$TMP/doc.md" "$DOC" || { echo "$DOC: the generated tables are stale; run $0"; status=1; }
	cmp -s "$TMP/man" "$MAN" || { echo "$MAN is stale; run $0"; status=1; }
	exit $status
fi
cp "$TMP/man" "$MAN"
if [ "$MODE" = all ]; then
	ELF=${XB_DOCS_ELF:-} # default: the demo firmware, built by the workbench itself
	cat >"$TMP/keys" <<EOF
:wait running 60
:wait seconds 12 120
:view overview
:dump $TMP/overview.dump
:view single
1
:dump $TMP/libraries.dump
2
:dump $TMP/functions.dump
3
:dump $TMP/cachesets.dump
4
:dump $TMP/echoes.dump
5
:dump $TMP/log.dump
8
:wait frames 2
:dump $TMP/triage.dump
:quit
EOF
	args="--headless --no-config --keys $TMP/keys --size 100x32"
	[ -n "$ELF" ] && args="$args --elf $ELF"
	# the overview needs a wide canvas: a second run would measure other numbers, so the
	# panels come from a 100x32 run and the overview from a 200x60 one
	"$XB" workbench $args >/dev/null 2>"$TMP/run.err" || { cat "$TMP/run.err"; exit 1; }
	for p in libraries functions cachesets echoes log triage; do
		{ echo; echo '```text'; sed -n '/^text$/,/^styles$/p' "$TMP/$p.dump" | sed '1d;$d' |
			sed 's/^|//; s/|$//; s/ *$//'; echo '```'; echo; } >"$TMP/$p.block"
		replace "$TMP/doc.md" "dump $p" "$TMP/$p.block"
	done
	"$XB" workbench --headless --no-config --keys "$TMP/keys" --size 200x60 \
		${ELF:+--elf "$ELF"} >/dev/null 2>"$TMP/run.err" || { cat "$TMP/run.err"; exit 1; }
	{ echo; echo '```text'; sed -n '/^text$/,/^styles$/p' "$TMP/overview.dump" | sed '1d;$d' |
		sed 's/^|//; s/|$//; s/ *$//'; echo '```'; echo; } >"$TMP/overview.block"
	replace "$TMP/doc.md" "dump overview" "$TMP/overview.block"

	# the edit loop: the planning profile, the colouring preset (the layout panel before
	# the relink), one turn of the loop (the compare panel after it)
	cat >"$TMP/loop.keys" <<EOF
:wait running 60
:profile
:wait loop 600
:view single
:layout
:preset colour
:dump $TMP/layout.dump
:loop colour
:wait loop 600
:compare
:dump $TMP/compare.dump
:quit
EOF
	"$XB" workbench --headless --no-config --keys "$TMP/loop.keys" --size 120x40 \
		--work-dir "$TMP/work" ${ELF:+--elf "$ELF"} >/dev/null 2>"$TMP/run.err" ||
		{ cat "$TMP/run.err"; exit 1; }
	for p in layout compare; do
		{ echo; echo '```text'; sed -n '/^text$/,/^styles$/p' "$TMP/$p.dump" | sed '1d;$d' |
			sed 's/^|//; s/|$//; s/ *$//'; echo '```'; echo; } >"$TMP/$p.block"
		replace "$TMP/doc.md" "dump $p" "$TMP/$p.block"
	done
	q() { sqlite3 "$TMP/work/runs.db" "SELECT printf('$2', $3) FROM runs WHERE layout = '$1'"; }
	{
		echo
		echo "The stock image measured $(q stock %.1f misses_per_echo) misses per echo" \
			"($(q stock %.1f predicted_misses_per_echo) predicted from the trace), turnaround" \
			"$(q stock %.3f turnaround_ms) ms, peak UDP echo $(q stock %.0f peak_udp_echo_per_s)/s," \
			"footprint $(q stock %.0f footprint_lines) lines. The colouring preset was predicted" \
			"at $(q colour %.1f predicted_misses_per_echo) misses per echo before the relink (OPT" \
			"bound $(q colour %.1f opt_bound_misses_per_echo)) and measured" \
			"$(q colour %.1f misses_per_echo) after it, with $(q colour %.0f pad_bytes) bytes of" \
			"padding and no extra RAM: turnaround $(q colour %.3f turnaround_ms) ms, peak UDP echo" \
			"$(q colour %.0f peak_udp_echo_per_s)/s, footprint $(q colour %.0f footprint_lines) lines."
		echo
	} >"$TMP/example.block"
	replace "$TMP/doc.md" "loop example" "$TMP/example.block"
fi
cp "$TMP/doc.md" "$DOC"
echo "wrote $DOC and $MAN"
