# funcs.awk: function symbols from `arm-none-eabi-readelf -sW`, one per line:
#   ADDRESS SIZE KEY   (address with the Thumb bit cleared, hex; KEY = FILE:name for
#   static functions, name for global ones, so that static functions sharing a name differ)
# Linker-made veneers are left out. Independent of xipbench: used as its oracle.
function hex(s,   i, v) {
	v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
$4 == "FILE" { file = $8 }
$4 == "FUNC" && $7 != "UND" {
	if ($8 ~ /_veneer$/) next
	a = hex($2); a -= a % 2
	key = ($5 == "LOCAL") ? file ":" $8 : $8
	printf "%08x %d %s\n", a, $3, key
}
