#include "textflag.h"

// func logSkelEqualAVX2(line, skel []byte) bool
//
// Reports whether the skeleton of line (its decimal digits written as '0')
// is skel, both of the same length n ≥ 32: 32 bytes at a time, the last 32
// overlapping the ones before when n is not a multiple of 32. A byte is right
// when it equals skel's, or is a digit where skel has '0' (skel holds no
// other digit).
TEXT ·logSkelEqualAVX2(SB), NOSPLIT, $0-49
	MOVQ	line_base+0(FP), SI
	MOVQ	line_len+8(FP), BX
	MOVQ	skel_base+24(FP), DI
	MOVQ	$0x2f, AX		// '0'-1
	MOVQ	AX, X1
	VPBROADCASTB	X1, Y1
	MOVQ	$0x3a, AX		// '9'+1
	MOVQ	AX, X2
	VPBROADCASTB	X2, Y2
	MOVQ	$0x30, AX		// '0'
	MOVQ	AX, X3
	VPBROADCASTB	X3, Y3
	XORQ	CX, CX

loop:
	LEAQ	32(CX), AX
	CMPQ	AX, BX
	JA	last
	VMOVDQU	(SI)(CX*1), Y4	// the line's bytes
	VMOVDQU	(DI)(CX*1), Y5	// the skeleton's
	VPCMPGTB	Y1, Y4, Y6	// x > '0'-1 (bytes from 0x80 are negative: not)
	VPCMPGTB	Y4, Y2, Y7	// '9'+1 > x
	VPAND	Y6, Y7, Y6		// x is a digit
	VPCMPEQB	Y3, Y5, Y7	// s is '0'
	VPAND	Y6, Y7, Y6
	VPCMPEQB	Y4, Y5, Y7	// x is s
	VPOR	Y6, Y7, Y6
	VPMOVMSKB	Y6, DX
	CMPL	DX, $0xffffffff
	JNE	differ
	ADDQ	$32, CX
	JMP	loop

last:
	CMPQ	CX, BX
	JEQ	same
	LEAQ	-32(BX), CX		// the last 32 bytes
	VMOVDQU	(SI)(CX*1), Y4
	VMOVDQU	(DI)(CX*1), Y5
	VPCMPGTB	Y1, Y4, Y6
	VPCMPGTB	Y4, Y2, Y7
	VPAND	Y6, Y7, Y6
	VPCMPEQB	Y3, Y5, Y7
	VPAND	Y6, Y7, Y6
	VPCMPEQB	Y4, Y5, Y7
	VPOR	Y6, Y7, Y6
	VPMOVMSKB	Y6, DX
	CMPL	DX, $0xffffffff
	JNE	differ

same:
	VZEROUPPER
	MOVB	$1, ret+48(FP)
	RET

differ:
	VZEROUPPER
	MOVB	$0, ret+48(FP)
	RET
