# docs/cli.md documents every subcommand and every key of every --json output.
. tests/integration/lib.sh
W=$XB_WORK
DOC=docs/cli.md

cmds=$("$XIPBENCH" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for c in $cmds; do
	grep -q "xipbench $c" "$DOC" && ok "$DOC documents '$c'" || not_ok "$DOC lacks 'xipbench $c'"
	"$XIPBENCH" "$c" --help | grep -q "usage: xipbench $c" && ok "'$c --help' prints its usage" ||
		not_ok "'$c --help'"
done

sh tests/data/build-fixture.sh "$W/fw" >"$W/build.log" 2>&1 || { not_ok "fixture builds"; exit 1; }
"$XIPBENCH" info "$W/fw/fw.elf" --json >"$W/info.json" && keys_documented info "$W/info.json"
arm-none-eabi-nm -S -n --defined-only "$W/fw/fw.elf" | awk -v echoes=5 -f scripts/synth-trace.awk >"$W/t.txt"
"$XIPBENCH" cache --trace "$W/t.txt" --json >"$W/cache.json" && keys_documented cache "$W/cache.json"
"$XIPBENCH" plan --elf "$W/fw/fw.elf" --trace "$W/t.txt" --strategy sram --out "$W/l" --json >"$W/plan.json" &&
	keys_documented plan "$W/plan.json"
"$XIPBENCH" predict --elf "$W/fw/fw.elf" --trace "$W/t.txt" --layout "$W/l" --json >"$W/predict.json" &&
	keys_documented predict "$W/predict.json"
sh tests/data/build-fixture.sh --relink "$W/fw" "$W/l" "$W/new.elf" >>"$W/build.log" 2>&1 &&
	"$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$W/l" --built "$W/new.elf" --json \
		>"$W/verify.json" && keys_documented verify "$W/verify.json"
# docs/workbench.md and the man page hold the workbench's own tables (actions, options,
# theme elements, status codes), as scripts/gen-workbench-docs.sh makes them
check "docs/workbench.md and docs/xipbench.1 match the workbench's tables" \
	env XIPBENCH="$XIPBENCH" sh scripts/gen-workbench-docs.sh "$XB_BUILD" --check
for a in $("$XIPBENCH" workbench --list actions | sed -n 's/^| [^|]* | `:\([a-z-]*\).*/\1/p'); do
	grep -q ":$a" docs/workbench.md || missing_action="$missing_action $a"
done
[ -z "${missing_action:-}" ] && ok "every action is in docs/workbench.md" ||
	not_ok "actions missing from docs/workbench.md:$missing_action"
for p in libraries functions cachesets echoes log layout compare triage; do
	sed -n "/generated: dump $p/,/end -->/p" docs/workbench.md | grep -q '┌┤' ||
		missing_dump="$missing_dump $p"
done
[ -z "${missing_dump:-}" ] && ok "docs/workbench.md shows every panel" ||
	not_ok "panels without a screen in docs/workbench.md:$missing_dump"
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww -z docs/xipbench.1 >"$W/groff.out" 2>&1 && [ ! -s "$W/groff.out" ] &&
		ok "the man page renders without a warning" ||
		{ not_ok "groff warns about docs/xipbench.1"; sed 's/^/# /' "$W/groff.out" | head; }
fi
finish
