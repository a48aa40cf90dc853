# Shared helpers for integration tests: TAP output, temp folders, tool checks.
# Each test script is run from the source tree with $XIPBENCH, $XB_SRC, $XB_BUILD and
# $XB_WORK (a fresh folder) set.
XB_N=0
XB_FAILED=0

ok() { XB_N=$((XB_N + 1)); echo "ok $XB_N - $*"; }
not_ok() { XB_N=$((XB_N + 1)); XB_FAILED=$((XB_FAILED + 1)); echo "not ok $XB_N - $*"; }

# check DESCRIPTION COMMAND...: passes when the command exits 0.
check() {
	d=$1
	shift
	if "$@" >"$XB_WORK/last.out" 2>&1; then ok "$d"; else
		not_ok "$d"
		sed 's/^/# /' "$XB_WORK/last.out" | head -n 20
	fi
}

# check_fails DESCRIPTION PATTERN COMMAND...: passes when the command exits non-zero
# (not by a signal) and its output matches PATTERN (grep -E).
check_fails() {
	d=$1
	pat=$2
	shift 2
	"$@" >"$XB_WORK/last.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -Eq "$pat" "$XB_WORK/last.out"; then ok "$d"; else
		not_ok "$d (exit $rc)"
		sed 's/^/# /' "$XB_WORK/last.out" | head -n 20
	fi
}

# every key of each JSON output, at any depth, appears in the document as `key`, as
# `parent.key`, or inside a `{key, key}` list
keys_documented() { # LABEL JSON-FILE (docs/cli.md)
	missing=""
	for k in $(jq -r '[paths | map(select(type == "string")) | last | select(. != null)] | unique[]' "$2"); do
		grep -Eq "(\`|\\.|[{] ?|, )$k(\`|,|[}])" docs/cli.md || missing="$missing $k"
	done
	[ -z "$missing" ] && ok "$1: every JSON key is documented" || not_ok "$1: undocumented JSON keys:$missing"
}
# expect DESCRIPTION FILE PATTERN...: passes when FILE matches every pattern (grep -E).
expect() {
	d=$1
	f=$2
	shift 2
	for pat in "$@"; do
		if ! grep -Eq -- "$pat" "$f"; then
			not_ok "$d (no match for '$pat')"
			sed 's/^/# /' "$f" | head -n 30
			return
		fi
	done
	ok "$d"
}

# jq_on FILE DESCRIPTION JQ-EXPRESSION: passes when the expression is true on the JSON;
# on failure shows what $JQ_SHOW (a jq filter, default the whole document) picks from it,
# and returns 1.
jq_on() {
	if jq -e "$3" "$1" >/dev/null 2>&1; then ok "$2"; else
		not_ok "$2"
		jq -c "${JQ_SHOW:-.}" "$1" 2>&1 | sed 's/^/# /' | head -n 12
		return 1
	fi
}

finish() { [ "$XB_FAILED" -eq 0 ]; }
