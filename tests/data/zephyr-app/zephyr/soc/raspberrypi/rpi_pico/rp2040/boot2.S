/* The second stage bootloader: 256 bytes at the start of flash (.boot2). */
	.section .boot2, "ax"
	.global boot2
boot2:
	.rept 63
	.word 0x4b32b500
	.endr
	.word 0x7a4eb80c
