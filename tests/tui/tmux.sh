# tmux.sh: what the terminal tests share: a tmux server of their own, panes that run the
# workbench, bounded waits on what a pane shows, and the checks that the terminal was left
# as it was. Sourced after tests/integration/lib.sh, with W set to the scratch folder. The
# checks read UTF-8 (grep's {N} counts characters), whatever the caller's locale.
LC_ALL=C.UTF-8
export LC_ALL

SOCK="xb-$(basename "$0" .sh)-$$"
T() { tmux -L "$SOCK" -f "$W/tmux.conf" "$@"; }
# the server goes at the end, and its socket with it (kill-server leaves the file)
SOCKFILE="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
trap 'T kill-server >/dev/null 2>&1; rm -f "$SOCKFILE"' EXIT INT TERM
if infocmp tmux-256color >/dev/null 2>&1; then TT=tmux-256color; else TT=screen-256color; fi
printf 'set -g default-terminal %s\nset -g history-limit 100\n' "$TT" >"$W/tmux.conf"

# wait_for SECONDS COMMAND...: polls until the command succeeds, for at most SECONDS.
wait_for() {
	limit=$(($1 * 20))
	shift
	i=0
	while [ $i -lt $limit ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
pane() { T capture-pane -p -t "$1"; }
pane_has() { pane "$1" | grep -qF -- "$2"; }
pane_matches() { pane "$1" | grep -qE -- "$2"; }
flag() { T display -p -t "$1" "#{$2}"; }
keys() { T send-keys -t "$@"; }

# start_pane NAME WIDTH HEIGHT ENV COMMAND...: a pane that runs the command (its standard
# error in W/NAME.err, its pid in W/NAME.pid), then reports its exit status and stays.
start_pane() {
	name=$1 w=$2 h=$3 envs=$4
	shift 4
	cat >"$W/$name.sh" <<EOS
printf 'shell before\n'
stty -g >"$W/$name.stty-before"
sh -c 'echo \$\$ >"$W/$name.pid"; exec env $envs $*' 2>"$W/$name.err"
echo "exit status \$?"
stty -g >"$W/$name.stty-after"
exec cat
EOS
	T new-session -d -s "$name" -x "$w" -y "$h" "sh '$W/$name.sh'"
}

# restored NAME STATUS: the workbench ended with STATUS and the terminal is as it was.
restored() {
	if wait_for 20 pane_has "$1" "exit status $2"; then ok "$1: exits with status $2"; else
		not_ok "$1: no 'exit status $2'"
		pane "$1" | sed 's/^/# /' | tail -n 15
		sed 's/^/# /' "$W/$1.err" | tail -n 5
	fi
	pane_has "$1" "shell before" && [ "$(flag "$1" alternate_on)" = 0 ] &&
		ok "$1: the normal screen is back" || not_ok "$1: still on the alternate screen"
	[ "$(flag "$1" cursor_flag)" = 1 ] && ok "$1: the cursor is shown" ||
		not_ok "$1: the cursor is hidden"
	m="$(flag "$1" mouse_standard_flag)$(flag "$1" mouse_button_flag)$(flag "$1" mouse_sgr_flag)"
	[ "$m" = 000 ] && ok "$1: mouse reporting is off" || not_ok "$1: mouse reporting left on"
	wait_for 5 test -s "$W/$1.stty-after"
	cmp -s "$W/$1.stty-before" "$W/$1.stty-after" && ok "$1: the tty modes are as before" ||
		not_ok "$1: the tty modes changed"
}

# sanitizers: a report in the workbench's standard error fails the run
clean() {
	if grep -qE 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer' "$W/$1.err"; then
		not_ok "$1: sanitizer report"
		grep -E -A5 'ERROR|runtime error' "$W/$1.err" | head -n 20 | sed 's/^/# /'
	else
		ok "$1: no sanitizer report"
	fi
}
