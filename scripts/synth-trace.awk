# synth-trace.awk: a synthetic fetch trace for an image, from `arm-none-eabi-nm -S -n`.
# A model, not a measurement: each echo walks a fixed random "call path" through a share
# of the functions (frac), running a random prefix of each, with a few short loops and a
# few functions skipped per echo; a share of the functions on the path (rare, default 0)
# runs only in 10-50 % of the echoes. Deterministic for a seed (own generator, not awk's
# rand).
#   arm-none-eabi-nm -S -n --defined-only fw.elf |
#     awk -v echoes=40 -v frac=0.6 -v seed=1 [-v rare=0.3] -f scripts/synth-trace.awk > trace.txt
# Park-Miller: products stay below 2^53, so every awk computes the same sequence.
function rnd() { lcg = (lcg * 16807) % 2147483647; return lcg / 2147483647 }
function hex(s,   i, v) {
	v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
BEGIN {
	if (echoes == "") echoes = 40
	if (frac == "") frac = 0.6
	if (seed == "") seed = 1
	if (rare == "") rare = 0
	lcg = seed % 2147483646 + 1
	n = 0
}
NF >= 4 && ($3 == "T" || $3 == "t" || $3 == "W") {
	a = hex($1); s = hex($2)
	if (s < 4 || a < 268435456 || a >= 335544320) next   # flash (0x10000000..0x13ffffff) only
	if ($4 ~ /(^|_)(cold|init|boot|reset|fault|panic)/) next
	a = a - a % 2
	if (a in seen) next                                  # aliases: one walk per address
	seen[a] = 1
	n++; fa[n] = a; fs[n] = s
}
END {
	m = 0
	for (i = 1; i <= n; i++) if (rnd() < frac) { m++; path[m] = i }
	for (i = m; i > 1; i--) { j = 1 + int(rnd() * i); t = path[i]; path[i] = path[j]; path[j] = t }
	for (k = 1; k <= m; k++) {
		i = path[k]
		cov[k] = fs[i] * (0.4 + 0.6 * rnd()); cov[k] -= cov[k] % 2; if (cov[k] < 2) cov[k] = 2
		loop[k] = rnd() < 0.2
	}
	# drawn after the path so that rare = 0 keeps the traces of earlier versions
	for (k = 1; k <= m; k++) runs[k] = rare > 0 && rnd() < rare ? 0.1 + 0.4 * rnd() : 1
	printf "# synthetic trace (a model, not a measurement): %d echoes over %d of %d functions\n", echoes, m, n
	for (e = 0; e < echoes; e++) {
		print "echo"
		for (k = 1; k <= m; k++) {
			if (rnd() < 0.07) continue
			if (runs[k] < 1 && rnd() >= runs[k]) continue
			i = path[k]
			for (o = 0; o < cov[k]; o += 2) printf "%08x\n", fa[i] + o
			if (loop[k] && cov[k] > 24)
				for (r = 0; r < 3; r++) for (o = 8; o < 24; o += 2) printf "%08x\n", fa[i] + o
		}
	}
}
