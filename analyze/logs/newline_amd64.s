#include "textflag.h"

// func logNewlinesAVX2(s []byte, dst []int32, base int) (n, scanned int)
//
// Compares 32 bytes of s at a time with '\n' and writes the offset plus base
// of each one found to dst, while at least 32 bytes of s are left and at
// least 32 places of dst (a step writes at most 32). Returns the offsets
// written and the bytes looked at (a multiple of 32).
TEXT ·logNewlinesAVX2(SB), NOSPLIT, $0-72
	MOVQ	s_base+0(FP), SI
	MOVQ	s_len+8(FP), BX
	MOVQ	dst_base+24(FP), DI
	MOVQ	dst_len+32(FP), R8
	MOVQ	base+48(FP), R9
	MOVQ	$0x0a, AX
	MOVQ	AX, X1
	VPBROADCASTB	X1, Y1
	XORQ	CX, CX			// bytes looked at
	XORQ	DX, DX			// offsets written

loop:
	LEAQ	32(CX), AX
	CMPQ	AX, BX
	JA	done			// fewer than 32 bytes left
	MOVQ	R8, AX
	SUBQ	DX, AX
	CMPQ	AX, $32
	JLT	done			// fewer than 32 places left
	VMOVDQU	(SI)(CX*1), Y2
	VPCMPEQB	Y1, Y2, Y2
	VPMOVMSKB	Y2, R10
	TESTL	R10, R10
	JZ	next

bits:
	BSFL	R10, R11
	ADDQ	CX, R11
	ADDQ	R9, R11
	MOVL	R11, (DI)(DX*4)
	INCQ	DX
	LEAL	-1(R10), R12
	ANDL	R12, R10		// clears the lowest bit
	JNZ	bits

next:
	ADDQ	$32, CX
	JMP	loop

done:
	VZEROUPPER
	MOVQ	DX, n+56(FP)
	MOVQ	CX, scanned+64(FP)
	RET
