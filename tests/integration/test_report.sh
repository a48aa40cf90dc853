# test_report: `xipbench report` on a history made here: a schema-1 file (as xipbench wrote
# it before schema 2) that the report migrates, then given methods, notes and cache-set maps
# by sqlite3 as docs/formats-history.md describes them. The Markdown rows and their changes
# against the stored numbers (computed here by awk), the SVGs through xmllint, the CSV's
# rows with awk, the JSON with jq, PNGs or the message that no converter is installed, and
# the errors.
. tests/integration/lib.sh
W=$XB_WORK
DB=$W/runs.db

sqlite3 "$DB" <<'EOF'
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY, time TEXT NOT NULL, image_hash TEXT NOT NULL,
 image TEXT, variant TEXT NOT NULL, layout TEXT NOT NULL, bench TEXT NOT NULL,
 extra_ram_bytes INTEGER, pad_bytes INTEGER, misses_per_echo REAL,
 predicted_misses_per_echo REAL, opt_bound_misses_per_echo REAL, turnaround_ms REAL,
 peak_udp_echo_per_s REAL, footprint_lines REAL);
CREATE INDEX runs_image ON runs (image_hash);
INSERT INTO meta VALUES ('schema', '1');
INSERT INTO runs VALUES (1, '2026-11-30T10:00:00Z', 'aa01', 'fw/echo.elf', 'stock', 'stock',
 'virtual', 0, 0, 1836.9, 1836.9, 508.6, 1.1, 550, 3009);
INSERT INTO runs VALUES (2, '2026-11-30T10:01:00Z', 'aa02', 'fw/colour/echo.elf', 'stock',
 'colour', 'virtual', 0, 27144, 1198.3, 1192.6, 504.6, 0.901, 700, 2625);
INSERT INTO runs VALUES (3, '2026-11-30T10:02:00Z', 'aa03', 'fw/lto/echo.elf', 'LTO=1', 'lto',
 'virtual', 0, 0, 1482.5, NULL, NULL, 0.927, NULL, 2745);
INSERT INTO runs VALUES (4, '2026-11-30T10:03:00Z', 'aa04', 'fw/sram/echo.elf', 'stock',
 'colour-sram-4k', 'virtual', 4096, 2916, 674.0, 678.0, 169.6, 0.698, 750, 2287);
EOF

# the first report migrates the file to schema 2 in place
check "report on a schema-1 history" "$XIPBENCH" report --db "$DB" --format csv
v=$(sqlite3 "$DB" "select value from meta where key = 'schema'; pragma journal_mode; pragma integrity_check")
[ "$v" = "2
wal
ok" ] && ok "the history is migrated to schema 2, in WAL mode, sound" || not_ok "after the report: '$v'"
n=$(sqlite3 "$DB" "select count(*) from runs where misses_per_echo is not null and parent_id is null and method is null")
[ "$n" = 4 ] && ok "the old runs keep their values, the new fields are NULL" || not_ok "old runs: $n"

# schema 2's fields, as documented: methods, a note, cache-set maps (1,024 little-endian
# 16-bit counts) for runs 1 and 2
blob() { # EXPRESSION-OF-i: the hex of 1,024 counts
	awk -v e="$1" 'BEGIN { for (i = 0; i < 1024; i++) { v = (e == "a") ? (i * 7) % 5 : i % 3
		printf "%02x%02x", v % 256, int(v / 256) } }'
}
sqlite3 "$DB" "update runs set method = '{\"pings\": 300, \"interval_ms\": 20, \"ping_size\": 56}' where id != 3;
update runs set method = '{\"pings\": 60, \"interval_ms\": 20}', note = 'LTO, name list \"v2\", | kept' where id = 3;
update runs set parent_id = 1 where id in (2, 4);
update runs set set_hot = x'$(blob a)' where id = 1;
update runs set set_hot = x'$(blob b)' where id = 2;"

# ---- Markdown to standard output ----
"$XIPBENCH" report --db "$DB" >"$W/report.md" 2>"$W/report.err" && ok "report prints Markdown" ||
	{ not_ok "report prints Markdown"; sed 's/^/# /' "$W/report.err"; }
# the rows each table should have, from the stored numbers: figures as the tables print
# them, changes against run 1 (the first stock run)
sqlite3 -separator ' ' "$DB" "select id, layout || case when variant = 'stock' then '' else ' (' || variant || ')' end,
	coalesce(extra_ram_bytes, 'x'), coalesce(misses_per_echo, 'x'), coalesce(predicted_misses_per_echo, 'x'),
	coalesce(opt_bound_misses_per_echo, 'x'), coalesce(turnaround_ms, 'x'), coalesce(peak_udp_echo_per_s, 'x'),
	coalesce(footprint_lines, 'x') from runs order by id" >"$W/rows.txt"
awk '
function f(v, d, u) { return v == "x" ? "-" : sprintf("%." d "f%s", v, u) }
function chg(v, b,    p, s) {
	if (v == "x" || b == "x" || b == 0) return "-"
	p = (v - b) / b * 100
	s = sprintf(p < 0 ? (p > -9.95 ? "%.1f" : "%.0f") : (p < 9.95 ? "%.1f" : "%.0f"), p < 0 ? -p : p)
	if (s + 0 == 0) return "0 %"
	return (p < 0 ? "\342\210\222" : "+") s " %"
}
{ # id, label (one or two words), ram, misses, predicted, opt, turnaround, peak, footprint
	k = NF - 7; label = $2; for (i = 3; i <= k; i++) label = label " " $i
	id[NR] = $1; lab[NR] = label; ram[NR] = $(k + 1); mis[NR] = $(k + 2); pre[NR] = $(k + 3)
	opt[NR] = $(k + 4); tur[NR] = $(k + 5); udp[NR] = $(k + 6); fp[NR] = $(k + 7)
}
END {
	for (t = 1; t <= 2; t++) for (r = 1; r <= NR; r++) {
		base = r == 1
		c1 = base ? "baseline" : chg(mis[r], mis[1]); c2 = base ? "baseline" : chg(tur[r], tur[1])
		c3 = base ? "baseline" : chg(udp[r], udp[1])
		if (t == 1 && (ram[r] <= 0 || base))
			printf "T1 | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", id[r], lab[r],
				f(mis[r], 1, ""), c1, f(pre[r], 1, ""), f(opt[r], 1, ""), f(tur[r], 3, " ms"), c2, f(fp[r], 0, "")
		if (t == 2 && (ram[r] > 0 || base))
			printf "T2 | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", id[r], lab[r],
				f(ram[r] / 1024, 1, " KB"), f(udp[r], 0, "/s"), c3, f(tur[r], 3, " ms"), c2,
				f(mis[r], 1, ""), c1, f(pre[r], 1, ""), f(opt[r], 1, "")
	}
}' "$W/rows.txt" >"$W/want.txt"
awk '/^## Layouts without/ { t = "T1" } /^## Layouts with SRAM/ { t = "T2" } /^## Method/ { t = "" }
	t != "" && /^\| [0-9]/ { print t " " $0 }' "$W/report.md" >"$W/got.txt"
if [ -s "$W/want.txt" ] && cmp -s "$W/want.txt" "$W/got.txt"; then
	ok "the two tables' rows and changes match the stored numbers ($(wc -l <"$W/want.txt") rows)"
else
	not_ok "the tables' rows differ from the stored numbers"
	diff "$W/want.txt" "$W/got.txt" | sed 's/^/# /' | head -n 20
fi
grep -q -- '| 4 | colour-sram-4k | 4.0 KB | 750/s | +36 % | 0.698 ms | −37 % | 674.0 | −63 % |' "$W/report.md" &&
	ok "a worked row: + 4 KB of SRAM, 36 % more UDP echoes, 63 % fewer misses than stock" ||
	not_ok "the colour-sram-4k row"
expect "the method paragraphs (two methods) and the note" "$W/report.md" \
	'^Runs 1, 2, 4: Method: 300 pings of 56 bytes every 20 ms' '^Run 3: Method: 60 pings every 20 ms' \
	'^- Run 3: LTO, name list "v2", \\\| kept$'

# ---- Files ----
"$XIPBENCH" report --db "$DB" --out "$W/out" >"$W/files.txt" 2>"$W/files.err" && ok "report --out" ||
	{ not_ok "report --out"; sed 's/^/# /' "$W/files.err"; }
for f in report.md runs.csv runs.json bars.svg sets-1.svg sets-2.svg; do
	[ -s "$W/out/$f" ] && grep -qx "$W/out/$f" "$W/files.txt" || missing_file="${missing_file:-} $f"
done
[ -z "${missing_file:-}" ] && ok "it writes and names report.md, runs.csv, runs.json, bars.svg, sets-1.svg, sets-2.svg" ||
	not_ok "files missing:$missing_file"
[ ! -e "$W/out/sets-3.svg" ] && [ ! -e "$W/out/sets-4.svg" ] && ok "no set map for runs without one" ||
	not_ok "a set map for a run without one"
cmp -s "$W/report.md" "$W/out/report.md" && not_ok "report.md should also link the figures" ||
	expect "report.md is the printed report with its figures" "$W/out/report.md" '^## Figures' \
		'!\[cache sets of run 2\]\(sets-2.svg\)'
if command -v xmllint >/dev/null 2>&1; then
	for f in "$W"/out/*.svg; do
		xmllint --noout "$f" >"$W/xmllint.out" 2>&1 && ok "xmllint: $(basename "$f") is well-formed XML" ||
			{ not_ok "xmllint: $(basename "$f")"; sed 's/^/# /' "$W/xmllint.out" | head -n 5; }
	done
else
	not_ok "xmllint is missing (scripts/ensure-deps.sh installs libxml2-utils)"
fi
over=$(awk 'BEGIN { for (i = 0; i < 1024; i++) n += (i * 7) % 5 > 2; print n }')
expect "sets-1.svg: run 1's map alone, $over sets over the two ways" "$W/out/sets-1.svg" \
	"1024 sets, $over with more hot lines than ways"
n=$(grep -c '<title>set ' "$W/out/sets-2.svg")
expect "sets-2.svg: before (run 1) and after (run 2), 2 x 1,024 cells" "$W/out/sets-2.svg" \
	'before: run 1, stock' 'after: run 2, colour' "3 or more: .* $over → 0 sets"
[ "$n" = 2048 ] && ok "sets-2.svg has 2,048 cells" || not_ok "sets-2.svg has $n cells"
expect "bars.svg: each run's numbers beside its bars" "$W/out/bars.svg" '>1836.9</text>' \
	'>674.0</text>' '>0.927 ms</text>' '>750/s</text>' '#3 lto \(LTO=1\)'
rows=$(awk 'END { print NR - 1 }' "$W/out/runs.csv")
[ "$rows" = 4 ] && ok "runs.csv: a header and 4 rows" || not_ok "runs.csv has $rows rows"
cols=$(awk -F, 'NR == 1 { print NF }' "$W/out/runs.csv")
[ "$cols" = 20 ] && ok "runs.csv: 20 columns" || not_ok "runs.csv: $cols columns"
got=$(awk -F, 'NR == 5 { print $1, $6, $10 }' "$W/out/runs.csv" | tr -d '\r')
[ "$got" = "4 colour-sram-4k 674" ] && ok "runs.csv: run 4's id, layout, misses" || not_ok "runs.csv row 4: '$got'"
j=$(jq -c '[(.runs | length), .runs[1].misses_per_echo, .runs[1].parent_id, .runs[0].method.pings,
	.runs[2].note, .runs[2].peak_udp_echo_per_s, .runs[0].layout_hash]' "$W/out/runs.json" 2>&1)
[ "$j" = '[4,1198.3,1,300,"LTO, name list \"v2\", | kept",null,null]' ] &&
	ok "runs.json: runs, numbers, nulls, the method as an object, the note" || not_ok "runs.json: $j"
for k in $(jq -r '.runs[0] | keys[]' "$W/out/runs.json"); do
	grep -q "| \`$k\` |" docs/formats-history.md || undocumented="${undocumented:-} $k"
done
[ -z "${undocumented:-}" ] && ok "docs/formats-history.md documents every key of runs.json" ||
	not_ok "undocumented runs.json keys:$undocumented"

# PNGs: with a converter on this machine they are PNGs; with none, it says so and succeeds
if grep -q '\.png$' "$W/files.txt"; then
	bad=""
	for f in $(grep '\.png$' "$W/files.txt"); do
		[ "$(od -An -c -N4 "$f" | tr -d ' ')" = '211PNG' ] || bad="$bad $f"
	done
	[ -z "$bad" ] && ok "the PNGs start with the PNG signature" || not_ok "not PNGs:$bad"
else
	grep -q 'no SVG-to-PNG converter' "$W/files.err" && ok "no converter here: it says so" ||
		not_ok "no PNGs and no message"
fi
env PATH=/nonexistent "$XIPBENCH" report --db "$DB" --out "$W/nopng" --format png >"$W/nopng.txt" 2>"$W/nopng.err"
rc=$?
[ $rc = 0 ] && grep -q 'no SVG-to-PNG converter on PATH.*librsvg2-bin' "$W/nopng.err" &&
	[ -s "$W/nopng/bars.svg" ] && ! ls "$W"/nopng/*.png >/dev/null 2>&1 &&
	ok "without a converter: the SVGs, a clear message, exit 0" ||
	{ not_ok "without a converter (exit $rc)"; sed 's/^/# /' "$W/nopng.err"; }

# ---- Choosing runs ----
"$XIPBENCH" report --db "$DB" --runs 4,2 --baseline 1 >"$W/some.md" 2>&1
got=$(grep -E '^\| [0-9]' "$W/some.md" | cut -d'|' -f2 | tr -d ' ' | tr '\n' ,)
[ "$got" = "1,2,1,4," ] && ok "--runs 4,2 --baseline 1: the baseline leads, then the runs" ||
	not_ok "--runs 4,2 --baseline 1 gave rows $got"
"$XIPBENCH" report --db "$DB" --runs 2,4 --baseline 2 >"$W/b2.md" 2>&1
expect "--baseline 2: changes against run 2" "$W/b2.md" 'compare each run with run 2 \(colour\)' \
	'\| 4 \| colour-sram-4k \| 4.0 KB \| 750/s \| \+7.1 % \|'
"$XIPBENCH" report --db "$DB" --runs 3 >"$W/nobase.md" 2>&1
expect "no stock run: no change columns" "$W/nobase.md" 'no baseline' '^\| Run \| Layout \| Misses/echo \| Predicted \|'
n=$("$XIPBENCH" report --db "$DB" --format json --runs 2,3 | jq '.runs | map(.id)' -c)
[ "$n" = "[2,3]" ] && ok "--format json to standard output" || not_ok "--format json: $n"

# ---- Errors ----
check_fails "a missing history" "xipbench report: .*missing.db: no such file" \
	"$XIPBENCH" report --db "$W/missing.db"
[ ! -e "$W/missing.db" ] && ok "... and none is created" || not_ok "a missing history was created"
head -c 3000 /dev/urandom >"$W/junk.db"
check_fails "a file that is not SQLite" "junk.db: .*not a database" "$XIPBENCH" report --db "$W/junk.db"
check_fails "an unknown run" "no run 99" "$XIPBENCH" report --db "$DB" --runs 1,99
check_fails "an unknown baseline" "no run 77" "$XIPBENCH" report --db "$DB" --baseline 77
: >"$W/plain"
check_fails "a folder that cannot be made" "xipbench report: .*plain" \
	"$XIPBENCH" report --db "$DB" --out "$W/plain/sub"
for args in "" "--db" "--db $DB --format pdf" "--db $DB --format svg" "--db $DB --format md,csv" \
	"--db $DB --runs 1,x" "--db $DB --baseline 0" "--db $DB extra"; do
	# shellcheck disable=SC2086
	"$XIPBENCH" report $args >"$W/usage.out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q 'usage: xipbench report' "$W/usage.out" && ok "usage error (exit 2): report $args" ||
		{ not_ok "report $args: exit $rc"; sed 's/^/# /' "$W/usage.out" | head -n 3; }
done
"$XIPBENCH" report --help | grep -q '^usage: xipbench report --db FILE' && ok "report --help" || not_ok "report --help"
finish
