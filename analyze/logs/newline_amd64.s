//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// func newlinesAVX2(s []byte, dst []int32, base int) (n, scanned int)
//
// Compares newlinesStep (64) bytes of s at a time with '\n', in two
// 32-byte halves, and writes the offset plus base of each one found to dst,
// while at least a step's bytes of s are left and as many places of dst. A
// step writes its first two offsets whether it found them or not (TZCNT of
// no bit is 64: junk past the ones it counts) and moves on by the number it
// found (POPCNT), so the usual step, with no more than two line ends, takes
// no branch on what it found; a third end and later ones are written in a
// loop. Returns the offsets written and the bytes looked at (a multiple of
// the step). Needs AVX2, BMI1 and POPCNT.
TEXT ·newlinesAVX2(SB), NOSPLIT, $0-72
	MOVQ	s_base+0(FP), SI
	MOVQ	s_len+8(FP), BX
	MOVQ	dst_base+24(FP), DI
	MOVQ	dst_len+32(FP), R8
	MOVQ	base+48(FP), R9
	MOVQ	$'\n', AX
	MOVQ	AX, X1
	VPBROADCASTB	X1, Y1
	XORQ	CX, CX			// bytes looked at
	XORQ	DX, DX			// offsets written
	SUBQ	$const_newlinesStep, R8	// a step needs DX ≤ R8

loop:
	LEAQ	const_newlinesStep(CX), AX
	CMPQ	AX, BX
	JA	done			// fewer than a step's bytes left
	CMPQ	DX, R8
	JGT	done			// fewer than a step's places left
	VPCMPEQB	(SI)(CX*1), Y1, Y2
	VPCMPEQB	32(SI)(CX*1), Y1, Y3
	VPMOVMSKB	Y2, R10
	VPMOVMSKB	Y3, R11
	SHLQ	$32, R11
	ORQ	R11, R10		// bit i: byte CX+i is '\n'
	POPCNTQ	R10, R13
	LEAQ	(R9)(CX*1), R14		// the offset of bit 0
	TZCNTQ	R10, R11
	ADDQ	R14, R11
	MOVL	R11, (DI)(DX*4)
	BLSRQ	R10, R10
	TZCNTQ	R10, R11
	ADDQ	R14, R11
	MOVL	R11, 4(DI)(DX*4)
	CMPQ	R13, $2
	JA	more
	ADDQ	R13, DX
	ADDQ	$const_newlinesStep, CX
	JMP	loop

more:					// a third end or more: one at a time
	ADDQ	$2, DX
	BLSRQ	R10, R10

bits:
	TZCNTQ	R10, R11
	ADDQ	R14, R11
	MOVL	R11, (DI)(DX*4)
	INCQ	DX
	BLSRQ	R10, R10
	JNZ	bits
	ADDQ	$const_newlinesStep, CX
	JMP	loop

done:
	VZEROUPPER
	MOVQ	DX, n+56(FP)
	MOVQ	CX, scanned+64(FP)
	RET
