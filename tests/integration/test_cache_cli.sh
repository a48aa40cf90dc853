# xipbench cache: hand-computed replays through the shipped targets, JSON keys, bad input.
. tests/integration/lib.sh
W=$XB_WORK
jn() { jq -r "$2" "$1"; }

# Three lines 8 KB apart share set 0 of the rp2040 cache (2 ways): under LRU a cyclic walk
# misses on every access once the echoes start (10 echoes x 3 lines).
{
	echo "# three lines aliased to one set"
	for e in 1 2 3 4 5 6 7 8 9 10; do
		echo echo
		echo 0x10000000; echo 0x10002000; echo 0x10004000
	done
} >"$W/three.txt"
check "cache replays a text trace" "$XIPBENCH" cache --target rp2040 --trace "$W/three.txt" --json
cp "$W/last.out" "$W/three.json"
[ "$(jn "$W/three.json" .misses)" = 30 ] && [ "$(jn "$W/three.json" .hits)" = 0 ] &&
	ok "three lines in a two-way set miss on every access (30 of 30)" ||
	not_ok "three aliased lines: misses $(jn "$W/three.json" .misses), hits $(jn "$W/three.json" .hits)"
[ "$(jn "$W/three.json" .misses_per_echo)" = 3 ] && ok "misses per echo 3" ||
	not_ok "misses per echo $(jn "$W/three.json" .misses_per_echo)"
[ "$(jn "$W/three.json" .opt_misses)" -le 30 ] && [ "$(jn "$W/three.json" .opt_misses)" = 3 ] &&
	ok "OPT (fully associative, 2048 lines) misses only the 3 first touches" ||
	not_ok "OPT misses $(jn "$W/three.json" .opt_misses)"

# The 4-way target holds all three: after the compulsory misses, everything hits.
check "the 4-way demo target loads" "$XIPBENCH" cache --target demo-32k-4way --trace "$W/three.txt" --json
[ "$(jq -r .cache.ways "$W/last.out")" = 4 ] && [ "$(jq -r .cache.sets "$W/last.out")" = 256 ] &&
	ok "demo-32k-4way: 4 ways, 256 sets" || not_ok "demo target geometry: $(cat "$W/last.out")"

# Every documented key is present.
missing=""
for k in target trace cache fetches accesses hits misses echoes misses_per_echo opt_misses \
	opt_misses_per_echo fa_lru_misses compulsory capacity conflict; do
	jq -e "has(\"$k\")" "$W/three.json" >/dev/null || missing="$missing $k"
done
[ -z "$missing" ] && ok "every documented JSON key is present" || not_ok "JSON keys missing:$missing"

printf 'not a trace\n' >"$W/bad.txt"
check_fails "garbage trace: exit 1 naming the file and line" "bad.txt:1" \
	"$XIPBENCH" cache --target rp2040 --trace "$W/bad.txt"
check_fails "unknown target: exit 1" "unknown target|nosuch" \
	"$XIPBENCH" cache --target nosuch --trace "$W/three.txt"
check_fails "missing --trace: usage error" "trace" "$XIPBENCH" cache --target rp2040
finish
