//go:build !purego

#include "textflag.h"

// func indexPairAVX2(s []byte, c1, c2, m1, m2 byte, d int) int
//
// Returns the smallest j with s[j]|m1 == c1 and s[j+d]|m2 == c2, or -1 (the
// masks are 0 for an exact search, 0x20 to ignore ASCII case). The caller
// guarantees d >= 1 and len(s)-d >= 32, so every load stays inside s: the loop
// steps 64 then 32 bytes, and the last partial step re-reads the final 32
// candidate positions (positions already checked cannot match again).
TEXT ·indexPairAVX2(SB), NOSPLIT, $0-48
	MOVQ	s_base+0(FP), SI
	MOVQ	s_len+8(FP), BX
	MOVBLZX	c1+24(FP), AX
	MOVBLZX	c2+25(FP), CX
	MOVQ	d+32(FP), DX
	SUBQ	DX, BX			// BX = candidate positions
	MOVQ	AX, X1
	VPBROADCASTB	X1, Y1
	MOVQ	CX, X2
	VPBROADCASTB	X2, Y2
	MOVBLZX	m1+26(FP), AX
	MOVQ	AX, X8
	VPBROADCASTB	X8, Y8
	MOVBLZX	m2+27(FP), CX
	MOVQ	CX, X9
	VPBROADCASTB	X9, Y9
	MOVQ	SI, DI
	LEAQ	-64(SI)(BX*1), R8	// last start of a full 64-byte step
	LEAQ	-32(SI)(BX*1), R9	// last 32-byte window
	LEAQ	(SI)(BX*1), R10		// end of candidates
loop64:
	CMPQ	DI, R8
	JA	loop32
	VPOR	(DI), Y8, Y3
	VPOR	(DI)(DX*1), Y9, Y4
	VPOR	32(DI), Y8, Y5
	VPOR	32(DI)(DX*1), Y9, Y6
	VPCMPEQB	Y1, Y3, Y3
	VPCMPEQB	Y2, Y4, Y4
	VPCMPEQB	Y1, Y5, Y5
	VPCMPEQB	Y2, Y6, Y6
	VPAND	Y3, Y4, Y3
	VPAND	Y5, Y6, Y5
	VPOR	Y3, Y5, Y7
	VPTEST	Y7, Y7
	JNZ	found64
	ADDQ	$64, DI
	JMP	loop64
found64:
	VPMOVMSKB	Y3, AX
	TESTL	AX, AX
	JNZ	found
	VPMOVMSKB	Y5, AX
	ADDQ	$32, DI
	JMP	found
loop32:
	CMPQ	DI, R9
	JA	tail
	VPOR	(DI), Y8, Y3
	VPOR	(DI)(DX*1), Y9, Y4
	VPCMPEQB	Y1, Y3, Y3
	VPCMPEQB	Y2, Y4, Y4
	VPAND	Y3, Y4, Y3
	VPMOVMSKB	Y3, AX
	TESTL	AX, AX
	JNZ	found
	ADDQ	$32, DI
	JMP	loop32
tail:
	CMPQ	DI, R10
	JAE	notfound
	MOVQ	R9, DI			// overlapping last window: positions before the old DI had no match
	VPOR	(DI), Y8, Y3
	VPOR	(DI)(DX*1), Y9, Y4
	VPCMPEQB	Y1, Y3, Y3
	VPCMPEQB	Y2, Y4, Y4
	VPAND	Y3, Y4, Y3
	VPMOVMSKB	Y3, AX
	TESTL	AX, AX
	JZ	notfound
found:
	BSFL	AX, AX
	SUBQ	SI, DI
	ADDQ	DI, AX
	MOVQ	AX, ret+40(FP)
	VZEROUPPER
	RET
notfound:
	MOVQ	$-1, ret+40(FP)
	VZEROUPPER
	RET
