/* csum_m0.S: the Internet checksum in Thumb assembly (CSUM=asm): 16 bytes per step with
 * LDM and an add-with-carry chain over little-endian words, folded and byte-swapped into
 * the big-endian word sum at the end (ones' complement addition commutes with the swap). */
	.syntax unified
	.cpu cortex-m0plus
	.thumb

/* uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
 * r0 buf, r1 len, r2 sum (kept in r12); r4 accumulator; r7 an odd leading byte | 0x100. */
	.section .text.csum_partial, "ax", %progbits
	.global csum_partial
	.type csum_partial, %function
	.thumb_func
csum_partial:
	push {r4, r5, r6, r7, lr}
	mov r12, r2
	movs r4, #0
	movs r7, #0
	cmp r1, #0
	beq .Lc_done
	/* An odd start address: take one byte so that the rest is halfword aligned. The
	 * aligned sum then sees every byte in the other lane, fixed by a swap below. */
	lsls r3, r0, #31
	beq .Lc_even
	ldrb r7, [r0]
	movs r3, #1
	lsls r3, r3, #8
	orrs r7, r3
	adds r0, #1
	subs r1, #1
.Lc_even:
	cmp r1, #2
	blo .Lc_byte
	lsls r3, r0, #30
	beq .Lc_aligned
	ldrh r3, [r0]
	adds r4, r4, r3
	adds r0, #2
	subs r1, #2
.Lc_aligned:
	movs r2, #0
	cmp r1, #16
	blo .Lc_words
.Lc_block:
	ldmia r0!, {r3, r5, r6}
	adds r4, r4, r3
	adcs r4, r5
	adcs r4, r6
	ldmia r0!, {r3}
	adcs r4, r3
	adcs r4, r2
	adcs r4, r2
	subs r1, #16
	cmp r1, #16
	bhs .Lc_block
.Lc_words:
	cmp r1, #4
	blo .Lc_half
	ldmia r0!, {r3}
	adds r4, r4, r3
	adcs r4, r2
	adcs r4, r2
	subs r1, #4
	b .Lc_words
.Lc_half:
	cmp r1, #2
	blo .Lc_byte
	ldrh r3, [r0]
	adds r0, #2
	subs r1, #2
	adds r4, r4, r3
	adcs r4, r2
	adcs r4, r2
.Lc_byte:
	cmp r1, #0
	beq .Lc_fold
	ldrb r3, [r0]           /* at an even offset: the low lane */
	adds r4, r4, r3
	movs r2, #0
	adcs r4, r2
	adcs r4, r2
.Lc_fold:
	lsrs r3, r4, #16
	uxth r4, r4
	adds r4, r4, r3
	lsrs r3, r4, #16
	uxth r4, r4
	adds r4, r4, r3
	lsrs r3, r7, #8
	beq .Lc_swap
	rev16 r4, r4
	uxtb r3, r7
	adds r4, r4, r3
	lsrs r3, r4, #16
	uxth r4, r4
	adds r4, r4, r3
.Lc_swap:
	rev16 r4, r4            /* little-endian lanes to the big-endian word sum */
.Lc_done:
	mov r2, r12
	adds r0, r4, r2
	pop {r4, r5, r6, r7, pc}
	.size csum_partial, . - csum_partial
