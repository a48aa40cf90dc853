# test_zephyr_shaped: a Zephyr-shaped project built here (tests/data/zephyr-app: a small
# emulated ZEPHYR_BASE with find_package(Zephyr), Kconfig, modules, snippets,
# zephyr_linker_sources and zephyr_code_relocate, and an application), in a folder whose
# path holds a space. Zephyr's archive names and object paths, the rpi_pico linker script
# structure (C preprocessor), a size-0 assembly reset handler calling z_prep_c ->
# z_bss_zero/z_data_copy -> memset/memcpy, picolibc's absolute FUNC symbol, RAM code calling
# flash code (veneers), two static fold16 in two utils.c.obj. xipbench finds the build
# (`--zephyr`), plans every strategy from the unprepared stock build, predicts, relinks with
# its own command (cmake: no west here) and every function lands where addresses.txt says
# (readelf/nm), the start-up path excepted on the code relocation route, as planned.
. tests/integration/lib.sh
W=$XB_WORK

for t in arm-none-eabi-gcc arm-none-eabi-readelf arm-none-eabi-nm cmake ninja jq; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "ok 1 # SKIP $t not installed"
		exit 0
	fi
done
P="$W/zephyr project"
mkdir -p "$P"
cp -R tests/data/zephyr-app/. "$P/"
B="$P/build"
build() {
	ZEPHYR_BASE="$P/zephyr" cmake -G Ninja -S "$P/app" -B "$B" -DBOARD=rpi_pico &&
		cmake --build "$B"
}
check "the Zephyr-shaped project configures and builds (cmake, ninja, GNU ld)" build
[ -f "$B/zephyr/zephyr.elf" ] && [ -f "$B/zephyr/zephyr_final.map" ] &&
	[ -f "$B/zephyr/subsys/net/ip/libsubsys__net__ip.a" ] && [ -f "$B/app/libapp.a" ] &&
	[ -f "$B/zephyr/arch/arch/arm/core/libarch__arm__core.a" ] &&
	ok "Zephyr's build folder layout and archive names" || not_ok "build folder layout"
cp "$B/zephyr/zephyr.elf" "$W/stock.elf"
cp "$B/zephyr/zephyr_final.map" "$W/stock.map"

# info
check "info --zephyr finds the build" "$XIPBENCH" info --zephyr "$B" --json
cp "$W/last.out" "$W/info.json"
code=$(arm-none-eabi-readelf -sW "$W/stock.elf" | awk '$4 == "FUNC" && $7 != "ABS" && $7 != "UND"' | wc -l)
n=$(jq '.functions | length' "$W/info.json")
[ "$n" = "$code" ] && ok "info counts the $code FUNC symbols with a section" ||
	not_ok "info counts $n functions, readelf has $code with a section"
board=$(jq -r '.build.board' "$W/info.json")
[ "${board%%/*}" = rpi_pico ] && ok "board rpi_pico ($board)" || not_ok "board: $board"
region=$(jq -r '.build.ram_region' "$W/info.json")
[ "$region" = RAM ] && ok "RAM region RAM from the map" || not_ok "RAM region: $region"
relink=$(jq -r '.build.relink' "$W/info.json")
case "$relink" in
*cmake*SNIPPET=xipbench-layout*EXTRA_ZEPHYR_MODULES*"{layout_dir}"*) ok "relink command through cmake" ;;
*) not_ok "relink command: $relink" ;;
esac
for g in kernel arch "IP stack" "USB device driver" app; do
	jq -e --arg g "$g" '[.groups[].name] | index($g)' "$W/info.json" >/dev/null &&
		ok "group $g" || not_ok "no group $g"
done

# samples and a trace of the steady state (the start-up code is not in them)
HOTF=" net_recv_data net_ipv4_input net_icmpv4_input net_udp_input net_pkt_alloc net_pkt_read
 net_pkt_write net_pkt_unref net_calc_chksum fold16 net_send_data udc_rpi_isr udc_rpi_ep_enqueue
 udc_submit_event udc_buf_get k_sem_give z_reschedule arch_swap udp_echo_cb echo_copy.isra.0
 net_udp_send net_ipv4_create "
arm-none-eabi-nm -S "$W/stock.elf" | awk -v L="$(echo $HOTF)" '
	BEGIN { n = split(L, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
	NF == 4 && ($4 in want) { print $1, $2 }' >"$W/hot.list"
{
	echo "busy-seconds 1"
	while read -r a s; do
		a=$((0x$a)); s=$((0x$s)); o=0
		while [ $o -lt "$s" ]; do printf '0x%x\n' $((a + o)); o=$((o + 2)); done
	done <"$W/hot.list"
} >"$W/hot.samples"
grep '^0x' "$W/hot.samples" >"$W/hot.trace"

STRATS="hot colour sram names noalloc"
for s in $STRATS; do
	check "plan --strategy $s on the stock build" "$XIPBENCH" plan --zephyr "$B" \
		--samples "$W/hot.samples" --strategy $s --sram-budget 256 --out "$W/plan $s" --json
	cp "$W/last.out" "$W/plan-$s.json"
	check "predict $s" "$XIPBENCH" predict --zephyr "$B" --layout "$W/plan $s" --trace "$W/hot.trace"
done

# Zephyr's scripts have no no-allocate section: the noalloc plan leaves the rest in flash
# and says why
jq -e '[.sram_refused[] | select(.reason | test("no no-allocate section"))] | length > 0' \
	"$W/plan-noalloc.json" >/dev/null && ok "noalloc plan: the functions it cannot alias stay in flash, with the reason" ||
	not_ok "noalloc plan: no reason given for the functions left in flash"

# the SRAM plan: the start-up path stays in flash and the plan says so; relocate.cmake
# names the board's RAM region, never one the board lacks
path=$(jq -r '.startup_path | join(" ")' "$W/plan-sram.json")
for f in __start z_prep_c z_bss_zero z_data_copy memcpy memset; do
	case " $path " in
	*" $f "*) ok "sram plan: $f is on the start-up path" ;;
	*) not_ok "sram plan: $f is not on the start-up path ($path)" ;;
	esac
done
grep -q "zephyr_code_relocate(.*LOCATION RAM_TEXT)" "$W/plan sram/zephyr/relocate.cmake" &&
	ok "relocate.cmake moves functions to RAM_TEXT" || not_ok "relocate.cmake has no RAM_TEXT call"
bad=$(cat "$W"/plan*/zephyr/relocate.cmake | grep '^zephyr_code_relocate' | grep -v 'LOCATION RAM_TEXT)' || true)
[ -z "$bad" ] && ok "no relocate.cmake names a region the board lacks" || not_ok "bad location: $bad"

# relink each plan with xipbench's command; check every predicted address with nm
for s in $STRATS; do
	cmd=$(printf '%s' "$relink" | sed "s|{layout_dir}|'$W/plan $s'|")
	check "relink $s with xipbench's command" sh -c "$cmd"
	cp "$B/zephyr/zephyr.elf" "$W/built-$s.elf"
	skip=" $(jq -r '.startup_path // [] | join(" ")' "$W/plan-$s.json") "
	arm-none-eabi-nm "$W/built-$s.elf" | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' | sort -k2 >"$W/nm-$s"
	miss=$(grep -v '^#' "$W/plan $s/addresses.txt" | while read -r a f; do
		if grep -q "zephyr_code_relocate(" "$W/plan $s/zephyr/relocate.cmake" &&
			case "$skip" in *" $f "*) true ;; *) false ;; esac; then
			continue
		fi
		# static functions of one name: the predicted address is one of theirs
		got=$(awk -v f="$f" -v a="$a" '$2 == f && ("0x" $1) == a { print "0x" $1 }' "$W/nm-$s" | head -n 1)
		[ -n "$got" ] || echo "$f:$a"
	done)
	nf=$(grep -c '^0x' "$W/plan $s/addresses.txt" 2>/dev/null)
	[ "${nf:-0}" -gt 0 ] && [ -z "$miss" ] && ok "$s: every function at its predicted address (nm, $nf functions)" ||
		not_ok "$s: not where predicted (${nf:-no} functions in addresses.txt): $(echo $miss | cut -c1-300)"
	check "$s: xipbench verify agrees" "$XIPBENCH" verify --elf "$W/stock.elf" --map "$W/stock.map" \
		--layout "$W/plan $s" --built "$W/built-$s.elf"
done
moved=$(arm-none-eabi-nm "$W/built-sram.elf" | awk '$1 ~ /^20/ && $2 ~ /^[tT]$/ { print $3 }' | grep -c . || true)
[ "$moved" -gt 1 ] && ok "sram: functions run from SRAM after the relink ($moved)" ||
	not_ok "sram: nothing in SRAM"
bad=$(arm-none-eabi-nm "$W/built-sram.elf" |
	awk '$1 ~ /^20/ && ($3 == "z_prep_c" || $3 == "z_bss_zero" || $3 == "z_data_copy" || $3 == "memcpy" || $3 == "memset" || $3 == "z_arm_reset")')
[ -z "$bad" ] && ok "sram: the start-up path is in flash after the relink" || not_ok "in SRAM: $bad"

# a verify that must fail: the hot plan's image checked against the sram plan
check_fails "verify refuses an image whose functions are not where the plan put them" \
	"not where the plan put them" "$XIPBENCH" verify --elf "$W/stock.elf" --map "$W/stock.map" \
	--layout "$W/plan sram" --built "$W/built-hot.elf"
finish
