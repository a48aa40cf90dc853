# remap.awk: moves a text trace from one link of an image to another, using only the two
# ELFs' symbol tables (funcs.awk output). An oracle for xipbench's own trace moving.
#   awk -f remap.awk OLD.funcs NEW.funcs trace.txt > moved.txt
function hex(s,   i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
FILENAME == ARGV[1] { n++; oa[n] = hex($1); os[n] = $2; ok[n] = $3; next }
FILENAME == ARGV[2] { na[$3] = hex($1); next }
/^echo/ || /^#/ || NF == 0 { print; next }
{
	a = hex($1)
	lo = 1; hi = n; f = 0
	while (lo <= hi) {
		mid = int((lo + hi) / 2)
		if (oa[mid] <= a) { f = mid; lo = mid + 1 } else hi = mid - 1
	}
	if (f && a < oa[f] + os[f] && (ok[f] in na)) a = na[ok[f]] + (a - oa[f])
	printf "%08x\n", a
}
