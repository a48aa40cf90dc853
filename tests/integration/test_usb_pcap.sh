#!/bin/sh
# test_usb_pcap: the usbmon capture of the virtual host enumerating the CDC-ECM loopback
# program and exchanging Ethernet frames with it (written by the unit test test_usbhost when
# XB_PCAP_OUT is set), read back with tshark: no malformed records, the descriptors and the
# CDC requests decode, the frames inside the bulk transfers are found, every URB pairs up,
# and a second run gives the same bytes.
. tests/integration/lib.sh

PCAP="$XB_WORK/usb.pcap"
BIN="$XB_BUILD/tests/test_usbhost"

capture() { # FILE
	XB_PCAP_OUT="$1" CMOCKA_MESSAGE_OUTPUT=TAP "$BIN"
}

count() { # FILTER: records tshark shows for it
	tshark -r "$PCAP" -Y "$1" 2>/dev/null | wc -l | tr -d ' '
}

expect_count() { # DESCRIPTION FILTER N
	n=$(count "$2")
	if [ "$n" = "$3" ]; then ok "$1"; else not_ok "$1 ($2: $n, expected $3)"; fi
}

if ! command -v tshark >/dev/null 2>&1; then
	echo "ok 1 - # SKIP tshark is not installed"
	exit 0
fi

check "test_usbhost writes a capture" capture "$PCAP"
check "tshark reads every record" tshark -r "$PCAP"
bad=$(tshark -r "$PCAP" -Y '_ws.malformed || _ws.expert.severity == error' 2>/dev/null)
if [ -z "$bad" ]; then ok "no malformed records"; else
	not_ok "malformed records"
	echo "$bad" | sed 's/^/# /' | head -n 10
fi
encap=$(tshark -r "$PCAP" -c 1 -T fields -e frame.encap_type 2>/dev/null)
if [ "$encap" = 115 ]; then ok "link type 220 (USB with Linux header and padding)"; else
	not_ok "encapsulation $encap"
fi

# Two enumerations (the test unplugs and plugs the device in again).
expect_count "device descriptors decode" 'usb.bDescriptorType == 0x01 && usb.idVendor == 0xcafe' 4
expect_count "configuration descriptors decode" 'usb.wTotalLength == 88' 4
expect_count "the Ethernet functional descriptor decodes" 'usbcom.descriptor.subtype == 0x0f' 2
expect_count "the MAC address string" 'usb.bString == "02A0B0C0D0E0"' 2
expect_count "SET_ADDRESS to 2, then 3" 'usb.setup.bRequest == 5' 2
expect_count "SET_ETHERNET_PACKET_FILTER 0x000C" 'usbcom.control.request_code == 0x43 && usbcom.control.value == 0x000c' 2
expect_count "NETWORK_CONNECTION notifications" 'usbcom.interrupt.notification_code == 0x00 && usbcom.interrupt.value == 1' 2
expect_count "CONNECTION_SPEED_CHANGE at 12 Mbit/s" 'usbcom.interrupt.conn_speed_change.dl_bitrate == 12000000' 1

# 13 frames sent, 13 returned with the addresses swapped.
expect_count "Ethernet frames in bulk transfers" 'usb.transfer_type == 0x03 && eth' 26
expect_count "frames sent (bulk OUT submissions)" \
	'usb.urb_type == 83 && usb.endpoint_address == 0x02 && eth.src == 02:a0:b0:c0:d0:e0' 13
expect_count "frames returned (bulk IN completions)" \
	'usb.urb_type == 67 && usb.endpoint_address == 0x82 && eth.src == 02:a0:b0:c0:d0:e1' 13
expect_count "a 64-byte frame goes with usbnet's padding byte" \
	'usb.urb_type == 83 && usb.endpoint_address == 0x02 && usb.urb_len == 65' 1

s=$(count 'usb.urb_type == 83')
c=$(count 'usb.urb_type == 67')
if [ "$s" -gt 50 ] && [ "$s" = "$c" ]; then ok "every submission completes ($s)"; else
	not_ok "submissions $s, completions $c"
fi
check "timestamps never go back" sh -c \
	"tshark -r '$PCAP' -T fields -e frame.time_epoch 2>/dev/null | sort -c -n"

check "a second run" capture "$XB_WORK/again.pcap"
check "gives the same bytes" cmp "$PCAP" "$XB_WORK/again.pcap"
finish
