#!/bin/sh
# test_snippet_ld: GNU ld itself judges the fragment format the snippet writers produce. Tiny
# Cortex-M0+ objects are linked with hand-written xipbench_hot.ld / xipbench_ramfunc.ld in the
# exact generated form; nm and readelf then show where every function landed.
. tests/integration/lib.sh

CC=arm-none-eabi-gcc
if ! command -v $CC >/dev/null 2>&1 || ! command -v arm-none-eabi-nm >/dev/null 2>&1; then
	echo "ok 1 # SKIP arm-none-eabi-gcc or binutils not installed"
	exit 0
fi
W=$XB_WORK
CFLAGS="-mcpu=cortex-m0plus -mthumb -Os -ffunction-sections"
mkdir -p "$W/lib" "$W/obj"

# Three objects define a static helper (the name collision the qualified selector resolves).
cat >"$W/a.c" <<'EOF'
static int __attribute__((noinline)) helper(int x) { return x * 3 + 1; }
int fa(int x) { return helper(x) + 2; }
EOF
cat >"$W/b.c" <<'EOF'
static int __attribute__((noinline)) helper(int x) { return x * 5 + 7; }
int fb(int x) { return helper(x) - 1; }
EOF
cat >"$W/c.c" <<'EOF'
static int __attribute__((noinline)) helper(int x) { return (x << 2) ^ 9; }
int fc(int x) { return helper(x) + 4; }
EOF
cat >"$W/hot.c" <<'EOF'
int fa(int), fb(int), fc(int);
int __attribute__((noinline)) cold_fn(int x) { return x * 7 - 3; }
int __attribute__((noinline)) hot_one(int x) { return x + 11; }
int __attribute__((noinline)) hot_two(int x) { return x ^ 0x55; }
int __attribute__((noinline)) painted(int x) { return x * 9 + 1; }
int __attribute__((noinline)) in_ram(int x) { return x - 5; }
volatile int sink;
void _start(void)
{
	for (;;)
		sink = cold_fn(sink) + hot_one(sink) + hot_two(sink) + painted(sink) + in_ram(sink) +
		       fa(sink) + fb(sink) + fc(sink);
}
__attribute__((section(".vectors"), used)) void *const vectors[2] = {(void *)0x20040000,
								     (void *)_start};
EOF

# shellcheck disable=SC2086 # CFLAGS holds several options
build() {
	(cd "$W" && $CC $CFLAGS -c a.c -o a.o && $CC $CFLAGS -c b.c -o b.o &&
		$CC $CFLAGS -c c.c -o obj/c.o && $CC $CFLAGS -c hot.c -o hot.o &&
		rm -f lib/liba.a libb.a && arm-none-eabi-ar rcs lib/liba.a a.o &&
		arm-none-eabi-ar rcs libb.a b.o)
}
check "compile the objects and archives" build

# The RAM section comes before the general text rule: GNU ld gives an input section to the
# first rule that matches it, in script order. Flash starts after a 256-byte boot stage, as on
# the RP2040, so the image does not start on a cache-way boundary.
cat >"$W/good.ld" <<'EOF'
MEMORY
{
	FLASH (rx) : ORIGIN = 0x10000100, LENGTH = 2M
	RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 256K
}
ENTRY(_start)
SECTIONS
{
	.text : { KEEP(*(.vectors)) INCLUDE xipbench_hot.ld } > FLASH
	.data : { INCLUDE xipbench_ramfunc.ld *(.data*) } > RAM AT> FLASH
	.text_rest : { *(.text*) *(.rodata*) } > FLASH
	.bss (NOLOAD) : { *(.bss*) *(COMMON) } > RAM
	/DISCARD/ : { *(.ARM.exidx*) *(.comment) }
}
EOF
# The same with the RAM section after the general text rule.
sed -e '/^\t\.data :/d' -e 's/^\t\.bss (NOLOAD)/\t.data : { INCLUDE xipbench_ramfunc.ld *(.data*) } > RAM AT> FLASH\n\t.bss (NOLOAD)/' \
	"$W/good.ld" >"$W/late.ld"

# Fragments in exactly the form snippet.c writes (see tests/unit/test_snippet.c).
cat >"$W/xipbench_hot.ld" <<'EOF'
/* xipbench hot text (strategy: colour): INCLUDE in the first output section after the vector table. */
__xipbench_hot_start = .;
*(.text.hot_two)
*(.text.hot_one)
. = . + ((ABSOLUTE(0x01a8) - ABSOLUTE(.)) & 0x1fff);
*(.text.painted)
*/liba.a:a.o(.text.helper)
__xipbench_hot_end = .;
EOF
cat >"$W/xipbench_ramfunc.ld" <<'EOF'
/* xipbench RAM functions (strategy: colour): INCLUDE in a RAM output section (AT> flash) that comes before the general text rule. */
__xipbench_ramfunc_start = .;
*(.text.in_ram)
*/c.o(.text.helper)
__xipbench_ramfunc_end = .;
EOF

link() { # script output
	(cd "$W" && $CC -mcpu=cortex-m0plus -mthumb -nostdlib -T "$1" -L. hot.o obj/c.o \
		lib/liba.a libb.a -Wl,--no-warn-rwx-segments -Wl,-Map="$2.map" -o "$2")
}
check "GNU ld accepts the fragments" link good.ld good.elf

# "FILE NAME ADDRESS" for every function and marker; FILE is the source of a local symbol
# (readelf lists locals after their STT_FILE symbol), "-" for globals.
symbols() {
	arm-none-eabi-readelf -sW "$W/$1" | awk '
		$4 == "FILE" { file = $8; next }
		$4 == "FUNC" || ($4 == "NOTYPE" && $8 ~ /^__xipbench/) {
			f = ($5 == "LOCAL") ? file : "-"
			printf "%s %s %s\n", f, $8, $2
		}'
}
# addr FILE NAME: the symbol's address with the Thumb bit cleared, in decimal.
addr() {
	v=$(symbols "$3" | awk -v f="$1" -v n="$2" '($1 == f || f == "-") && $2 == n { print $3; exit }')
	[ -n "$v" ] || { echo "no symbol $1:$2 in $3" >&2; echo -1; return; }
	echo $(( (0x$v) & ~1 ))
}

ELF=good.elf
HS=$(addr - __xipbench_hot_start $ELF)
HE=$(addr - __xipbench_hot_end $ELF)
RS=$(addr - __xipbench_ramfunc_start $ELF)
RE=$(addr - __xipbench_ramfunc_end $ELF)
HOT_TWO=$(addr - hot_two $ELF)
HOT_ONE=$(addr - hot_one $ELF)
PAINTED=$(addr - painted $ELF)
HELPER_A=$(addr a.c helper $ELF)
HELPER_B=$(addr b.c helper $ELF)
HELPER_C=$(addr c.c helper $ELF)
IN_RAM=$(addr - in_ram $ELF)
COLD=$(addr - cold_fn $ELF)
FA=$(addr - fa $ELF)
START=$(addr - _start $ELF)

in_range() { [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; }

check "the hot block follows the vector table (0x10000108)" test "$HS" -eq $((0x10000108))
check "the hot block starts with the first listed function" test "$HOT_TWO" -eq "$HS"
check "listed functions keep their order" \
	sh -c "[ $HOT_TWO -lt $HOT_ONE ] && [ $HOT_ONE -lt $PAINTED ] && [ $PAINTED -lt $HELPER_A ]"
check "the coloured function starts at offset 0x1a8 of the 8 KB way" \
	test $((PAINTED & 0x1fff)) -eq $((0x1a8))
check "the padding is less than one way" test $((PAINTED - HOT_ONE)) -lt $((0x2000))
check "liba.a:a.o's helper moved into the hot block" in_range "$HELPER_A" "$HS" "$HE"
check "libb.a:b.o's helper (same name) stayed in the general text" \
	sh -c "[ $HELPER_B -ge $HE ] && [ $HELPER_B -lt $((0x20000000)) ]"
check "unlisted functions stayed after the hot block" \
	sh -c "[ $COLD -ge $HE ] && [ $FA -ge $HE ] && [ $START -ge $HE ]"
check "in_ram runs from SRAM (0x2000xxxx)" test $((IN_RAM >> 16)) -eq $((0x2000))
check "in_ram is inside the RAM function markers" in_range "$IN_RAM" "$RS" "$RE"
check "obj/c.o's helper (plain object selector) runs from SRAM" in_range "$HELPER_C" "$RS" "$RE"
check "nm lists the hot functions first, in layout order" sh -c "
	arm-none-eabi-nm -n '$W/$ELF' | awk '\$2 ~ /^[Tt]\$/ && \$3 !~ /^(__xipbench|vectors$)/ { print \$3 }' | head -n 4 |
	tr '\n' ' ' | grep -qx 'hot_two hot_one painted helper '"

# The pitfall the docs warn about: behind the general text rule the RAM rules match nothing.
check "GNU ld links the late-RAM script" link late.ld late.elf
LATE_IN_RAM=$(addr - in_ram late.elf)
check "with .data after the text rule, in_ram stays in flash" \
	test $((LATE_IN_RAM >> 28)) -eq 1

# The padding needs both terms absolute: with a plain number for the offset, ld reads the sum
# as an offset from the section start and the section overflows flash.
sed 's/ABSOLUTE(0x01a8)/0x01a8/' "$W/xipbench_hot.ld" >"$W/plain.ld.frag"
check "(the offset written as a plain number differs only there)" \
	grep -q '^\. = \. + ((0x01a8 - ABSOLUTE(\.)) & 0x1fff);$' "$W/plain.ld.frag"
mkdir -p "$W/plain"
cp "$W/plain.ld.frag" "$W/plain/xipbench_hot.ld"
cp "$W/xipbench_ramfunc.ld" "$W/plain/"
plain_link() {
	(cd "$W/plain" && $CC -mcpu=cortex-m0plus -mthumb -nostdlib -T ../good.ld -L. ../hot.o \
		../obj/c.o ../lib/liba.a ../libb.a -Wl,--no-warn-rwx-segments -o plain.elf)
}
check_fails "GNU ld rejects '. + ((0xOFF - ABSOLUTE(.)) & MASK)' inside a section" \
	"will not fit|overflowed|overlaps" plain_link

# A stock build: the markers alone link, and mark an empty block.
printf '%s\n' '/* xipbench hot text: stock build, no functions moved. */' \
	'__xipbench_hot_start = .;' '__xipbench_hot_end = .;' >"$W/xipbench_hot.ld"
printf '%s\n' '/* xipbench RAM functions: stock build, no functions moved. */' \
	'__xipbench_ramfunc_start = .;' '__xipbench_ramfunc_end = .;' >"$W/xipbench_ramfunc.ld"
check "GNU ld links the stock fragments" link good.ld stock.elf
check "stock markers delimit an empty hot block" \
	test "$(addr - __xipbench_hot_start stock.elf)" -eq "$(addr - __xipbench_hot_end stock.elf)"

# A name ld would read as a pattern is what the writers refuse: here ld takes it as one.
printf '%s\n' '__xipbench_hot_start = .;' '*(.text.hot_*)' '__xipbench_hot_end = .;' \
	>"$W/xipbench_hot.ld"
check "GNU ld links a wildcard rule" link good.ld wild.elf
check "a wildcard in a section name moves more than one function" sh -c "
	[ $(addr - hot_one wild.elf) -lt $(addr - __xipbench_hot_end wild.elf) ] &&
	[ $(addr - hot_two wild.elf) -lt $(addr - __xipbench_hot_end wild.elf) ]"

finish
