# Round trip: plan -> snippets -> GNU ld links the same objects again -> every function is
# at its predicted address (so coloured functions in their planned sets, SRAM functions in
# SRAM), and the predicted misses equal a replay of the trace moved by the new ELF's own
# symbols. Oracles: arm-none-eabi-readelf and GNU ld.
. tests/integration/lib.sh
W=$XB_WORK
FA=tests/integration/funcs.awk
if ! sh tests/data/build-fixture.sh "$W/fw" >"$W/build.log" 2>&1; then
	not_ok "fixture builds"; cat "$W/build.log"; exit 1
fi
arm-none-eabi-readelf -sW "$W/fw/fw.elf" | awk -f $FA | sort >"$W/stock.funcs"
arm-none-eabi-nm -S -n --defined-only "$W/fw/fw.elf" |
	awk -v echoes=30 -v frac=0.7 -v seed=3 -f scripts/synth-trace.awk >"$W/trace.txt"

json_num() { # FILE KEY
	sed -n "s/.*\"$2\": *\([-0-9.e+]*\).*/\1/p" "$1" | head -n 1
}

for s in hot colour sram names; do
	L=$W/$s
	check "plan $s" "$XIPBENCH" plan --elf "$W/fw/fw.elf" --map "$W/fw/fw.map" \
		--trace "$W/trace.txt" --strategy $s --sram-budget 4096 --out "$L" --json
	cp "$W/last.out" "$W/$s.json"
	check "relink with the $s fragments" sh tests/data/build-fixture.sh --relink "$W/fw" "$L" "$L/fw.elf"
	arm-none-eabi-readelf -sW "$L/fw.elf" | awk -f $FA | sort >"$L/actual.funcs"
	grep -v '^#' "$L/addresses.txt" | sed 's/^0x//' | sort >"$L/pred.addr"
	awk '{ print $1, $3 }' "$L/actual.funcs" | sed 's/ [^ ]*:/ /' | sort >"$L/actual.addr"
	if diff "$L/pred.addr" "$L/actual.addr" >"$L/addr.diff"; then
		ok "$s: all $(wc -l <"$L/actual.addr") functions at their predicted addresses"
	else
		not_ok "$s: functions away from their predicted addresses"
		head -n 20 "$L/addr.diff" | sed 's/^/# /'
	fi
	# coloured functions start at their planned offset in the way; SRAM ones are in SRAM
	bad=$(awk 'FILENAME == ARGV[1] { addr[$2] = $1; next }
		$1 == "colour" { n = $2; o = $3
			if (!(n in addr)) next
			a = addr[n]; w = 0; for (i = 1; i <= length(a); i++) w = (w * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1) % 8192
			ow = 0; o = substr(o, 3); for (i = 1; i <= length(o); i++) ow = ow * 16 + index("0123456789abcdef", substr(o, i, 1)) - 1
			if (w != ow) print "colour", n }
		$1 == "sram" { n = $2; if ((n in addr) && substr(addr[n], 1, 2) != "20") print "sram", n }' \
		"$L/actual.addr" "$L/layout.txt")
	if [ -z "$bad" ]; then ok "$s: coloured functions in their sets, SRAM functions in SRAM"; else
		not_ok "$s: misplaced: $bad"; fi
	# predicted misses == replay of the trace moved by the new ELF's symbols
	awk -f tests/integration/remap.awk "$W/stock.funcs" "$L/actual.funcs" "$W/trace.txt" >"$L/moved.txt"
	"$XIPBENCH" cache --target rp2040 --trace "$L/moved.txt" --json >"$L/cache.json" 2>&1
	pred=$(json_num "$W/$s.json" predicted_misses_per_echo)
	meas=$(json_num "$L/cache.json" misses_per_echo)
	if [ -n "$pred" ] && [ -n "$meas" ] && awk -v a="$pred" -v b="$meas" 'BEGIN { d = a - b; exit !(d < 0.001 && d > -0.001) }'; then
		ok "$s: predicted misses per echo $pred == replay on the relinked image $meas"
	else
		not_ok "$s: predicted misses per echo '$pred' != replay on the relinked image '$meas'"
		head -n 5 "$L/cache.json" | sed 's/^/# /'
	fi
done

# colouring beats the hot block, which beats stock, on this trace
st=$(json_num "$W/colour.json" stock_misses_per_echo)
ho=$(json_num "$W/hot.json" predicted_misses_per_echo)
co=$(json_num "$W/colour.json" predicted_misses_per_echo)
op=$(json_num "$W/colour.json" opt_bound_misses_per_echo)
if awk -v s="$st" -v h="$ho" -v c="$co" -v o="$op" 'BEGIN { exit !(c <= h && h <= s && o <= c) }'; then
	ok "predicted misses: OPT $op <= colour $co <= hot $ho <= stock $st"
else
	not_ok "predicted misses out of order: OPT $op, colour $co, hot $ho, stock $st"
fi
finish
