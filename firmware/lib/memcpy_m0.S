/* memcpy_m0.S: word-wise memcpy and memset for the Cortex-M0+ (MEMCPY=asm): 16-byte LDM/STM
 * blocks once the destination is word aligned; bytes only for the edges and for buffers
 * whose alignments differ. */
	.syntax unified
	.cpu cortex-m0plus
	.thumb

/* void *memcpy(void *dst, const void *src, size_t n) */
	.section .text.memcpy, "ax", %progbits
	.global memcpy
	.type memcpy, %function
	.thumb_func
memcpy:
	push {r0, r4, r5, r6, lr}
	cmp r2, #8
	blo .Lcpy_bytes
	movs r3, r0
	eors r3, r1
	lsls r3, r3, #30        /* do dst and src share their alignment? */
	bne .Lcpy_bytes
.Lcpy_align:
	lsls r3, r0, #30
	beq .Lcpy_aligned
	ldrb r3, [r1]
	strb r3, [r0]
	adds r1, #1
	adds r0, #1
	subs r2, #1
	b .Lcpy_align
.Lcpy_aligned:
	cmp r2, #16
	blo .Lcpy_words
.Lcpy_block:
	ldmia r1!, {r3, r4, r5, r6}
	stmia r0!, {r3, r4, r5, r6}
	subs r2, #16
	cmp r2, #16
	bhs .Lcpy_block
.Lcpy_words:
	cmp r2, #4
	blo .Lcpy_bytes
	ldmia r1!, {r3}
	stmia r0!, {r3}
	subs r2, #4
	b .Lcpy_words
.Lcpy_bytes:
	cmp r2, #0
	beq .Lcpy_done
.Lcpy_byte:
	ldrb r3, [r1]
	strb r3, [r0]
	adds r1, #1
	adds r0, #1
	subs r2, #1
	bne .Lcpy_byte
.Lcpy_done:
	pop {r0, r4, r5, r6, pc}
	.size memcpy, . - memcpy

/* void *memset(void *dst, int c, size_t n) */
	.section .text.memset, "ax", %progbits
	.global memset
	.type memset, %function
	.thumb_func
memset:
	push {r0, r4, r5, lr}
	uxtb r1, r1
	lsls r3, r1, #8
	orrs r3, r1
	lsls r4, r3, #16
	orrs r3, r4             /* the byte in all four lanes */
	cmp r2, #8
	blo .Lset_bytes
.Lset_align:
	lsls r4, r0, #30
	beq .Lset_aligned
	strb r3, [r0]
	adds r0, #1
	subs r2, #1
	b .Lset_align
.Lset_aligned:
	movs r1, r3
	movs r4, r3
	movs r5, r3
	cmp r2, #16
	blo .Lset_words
.Lset_block:
	stmia r0!, {r1, r3, r4, r5}
	subs r2, #16
	cmp r2, #16
	bhs .Lset_block
.Lset_words:
	cmp r2, #4
	blo .Lset_bytes
	stmia r0!, {r3}
	subs r2, #4
	b .Lset_words
.Lset_bytes:
	cmp r2, #0
	beq .Lset_done
.Lset_byte:
	strb r3, [r0]
	adds r0, #1
	subs r2, #1
	bne .Lset_byte
.Lset_done:
	pop {r0, r4, r5, pc}
	.size memset, . - memset
