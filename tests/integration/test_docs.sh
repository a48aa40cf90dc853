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
finish
