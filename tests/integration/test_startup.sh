# test_startup: the start-up path stays in flash. Two small images built here with GNU ld:
# a Zephyr-shaped one (z_arm_reset, an assembly symbol of size 0, calls soc_reset_hook and
# z_prep_c with BL; z_prep_c runs z_bss_zero, z_data_copy (memcpy of .ramfunc and .data)
# and then z_cstart) and a pico-sdk-shaped one (_reset_handler of size 0 walks a copy table
# with ADR and BL data_cpy, then calls runtime_init and main through LDR + BLX). Every
# function is sampled; `plan --strategy sram` must keep the path up to the copy in flash
# (and say so), and may move what runs after it. The relink (GNU ld) must put every
# function where the plan said, with the start-up path in flash (nm). The Zephyr-shaped
# image also carries picolibc's absolute FUNC symbol vfscanf, which is not code.
. tests/integration/lib.sh
W=$XB_WORK
S=tests/data/startup

if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	echo "ok 1 # SKIP arm-none-eabi-gcc or jq not installed"
	exit 0
fi
mkdir -p "$W/stock" "$W/link"
printf '__xipbench_hot_start = .;\n__xipbench_hot_end = .;\n' >"$W/stock/xipbench_hot.ld"
printf '__xipbench_ramfunc_start = .;\n__xipbench_ramfunc_end = .;\n' >"$W/stock/xipbench_ramfunc.ld"
SRC=$(pwd)
link() { # OUT.elf LAYOUT_DIR SOURCES...
	out=$1
	dir=$2
	shift 2
	(cd "$W/link" && arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -Os -ffunction-sections \
		-fdata-sections -ffreestanding -nostdlib -fno-builtin -T "$SRC/$S/startup.ld" \
		-L "$dir" -L "$W/stock" -Wl,-Map="${out%.elf}.map" -Wl,--gc-sections -o "$out" "$@")
}
# samples on every halfword of the named functions
samples() { # ELF FUNC...
	elf=$1
	shift
	echo "busy-seconds 1"
	for f in "$@"; do
		arm-none-eabi-nm -S "$elf" | awk -v f="$f" '$4 == f { print $1, $2 }' |
			while read -r a s; do
				a=$((0x$a)); s=$((0x$s)); o=0
				while [ $o -lt "$s" ]; do printf '0x%x\n' $((a + o)); o=$((o + 2)); done
			done
	done
}
# the functions nm puts in RAM (0x2...) among the given ones
in_ram() { # ELF FUNC...
	elf=$1
	shift
	for f in "$@"; do
		arm-none-eabi-nm "$elf" | awk -v f="$f" '$3 == f && $1 ~ /^2/ { print f }'
	done
}

Z="$SRC/$S/zephyr_reset.S $SRC/$S/zephyr_init.c $SRC/$S/app.c"
P="$SRC/$S/sdk_crt0.S $SRC/$S/sdk_runtime.c $SRC/$S/app.c"
# shellcheck disable=SC2086
check "the Zephyr-shaped image links" link "$W/z.elf" "$W/stock" $Z
# shellcheck disable=SC2086
check "the pico-sdk-shaped image links" link "$W/p.elf" "$W/stock" $P

# 1. absolute FUNC symbols are not functions
if arm-none-eabi-readelf -sW "$W/z.elf" | grep -Eq "FUNC +GLOBAL +DEFAULT +ABS vfscanf"; then
	ok "readelf: vfscanf is an absolute FUNC symbol"
else
	not_ok "readelf shows no absolute vfscanf"
fi
check "info with the map accepts the image" "$XIPBENCH" info "$W/z.elf" --map "$W/z.map" --json
cp "$W/last.out" "$W/z-info.json"
code=$(arm-none-eabi-readelf -sW "$W/z.elf" | awk '$4 == "FUNC" && $7 != "ABS" && $7 != "UND"' | wc -l)
n=$(jq '.functions | length' "$W/z-info.json")
[ "$n" = "$code" ] && ok "info counts the $code FUNC symbols with a section, not vfscanf" ||
	not_ok "info counts $n functions, readelf has $code with a section"
jq -e '[.functions[].name] | index("vfscanf") | not' "$W/z-info.json" >/dev/null &&
	ok "vfscanf is not listed" || not_ok "vfscanf is listed as a function"
check "info without the map" "$XIPBENCH" info "$W/z.elf" --json
n=$(jq '.functions | length' "$W/last.out")
[ "$n" = "$code" ] && ok "without the map too" || not_ok "without the map: $n functions, not $code"

# 2. the start-up path
ALLZ="memcpy memset csum net_input z_data_copy z_prep_c z_bss_zero soc_reset_hook z_cstart z_sys_init_run_level main"
ALLP="memcpy memset csum net_input data_cpy runtime_init clocks_init main"
# shellcheck disable=SC2086
samples "$W/z.elf" $ALLZ >"$W/z.samples"
# shellcheck disable=SC2086
samples "$W/p.elf" $ALLP >"$W/p.samples"
for x in z p; do
	check "$x: plan sram" "$XIPBENCH" plan --elf "$W/$x.elf" --samples "$W/$x.samples" \
		--strategy sram --sram-budget 4096 --out "$W/$x.plan" --json
	cp "$W/last.out" "$W/$x.plan.json"
done
path=$(jq -r '.startup_path | join(" ")' "$W/z.plan.json")
for f in z_arm_reset soc_reset_hook z_prep_c z_bss_zero memset z_data_copy memcpy z_cstart; do
	case " $path " in
	*" $f "*) ok "zephyr: $f is on the start-up path" ;;
	*) not_ok "zephyr: $f is not on the start-up path ($path)" ;;
	esac
done
for f in z_sys_init_run_level main csum net_input; do
	case " $path " in
	*" $f "*) not_ok "zephyr: $f runs after the copy but is kept ($path)" ;;
	*) ok "zephyr: $f (after the copy) may move" ;;
	esac
done
jq -e '[.sram_refused[].function] | index("z_data_copy")' "$W/z.plan.json" >/dev/null &&
	ok "zephyr: the plan says why z_data_copy stays" || not_ok "zephyr: z_data_copy not in sram_refused"
path=$(jq -r '.startup_path | join(" ")' "$W/p.plan.json")
for f in _reset_handler data_cpy runtime_init; do
	case " $path " in
	*" $f "*) ok "pico-sdk: $f is on the start-up path" ;;
	*) not_ok "pico-sdk: $f is not on the start-up path ($path)" ;;
	esac
done
for f in clocks_init csum net_input memcpy; do
	case " $path " in
	*" $f "*) not_ok "pico-sdk: $f runs after the copy but is kept ($path)" ;;
	*) ok "pico-sdk: $f (after the copy) may move" ;;
	esac
done

# the relinks: every function where the plan put it, the path in flash
# shellcheck disable=SC2086
check "zephyr: relink with the plan's fragments" link "$W/z2.elf" "$W/z.plan" $Z
# shellcheck disable=SC2086
check "pico-sdk: relink with the plan's fragments" link "$W/p2.elf" "$W/p.plan" $P
check "zephyr: the relink verifies" "$XIPBENCH" verify --elf "$W/z.elf" --layout "$W/z.plan" --built "$W/z2.elf"
check "pico-sdk: the relink verifies" "$XIPBENCH" verify --elf "$W/p.elf" --layout "$W/p.plan" --built "$W/p2.elf"
moved=$(in_ram "$W/z2.elf" csum net_input)
[ -n "$moved" ] && ok "zephyr: hot code after the copy went to SRAM ($(echo $moved))" ||
	not_ok "zephyr: nothing hot moved to SRAM"
# shellcheck disable=SC2086
bad=$(in_ram "$W/z2.elf" z_prep_c z_bss_zero z_data_copy memcpy memset soc_reset_hook)
[ -z "$bad" ] && ok "zephyr: the start-up path is in flash after the relink (nm)" ||
	not_ok "zephyr: in SRAM after the relink: $bad"
bad=$(in_ram "$W/p2.elf" runtime_init)
[ -z "$bad" ] && ok "pico-sdk: runtime_init is in flash after the relink (nm)" ||
	not_ok "pico-sdk: in SRAM after the relink: $bad"
finish
