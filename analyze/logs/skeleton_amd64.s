//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// SKEL_CONSTANTS fills Y1 with '0'-1, Y2 with '9'+1 and Y3 with '0' (AX is
// clobbered), for SKEL_CHUNK.
#define SKEL_CONSTANTS \
	MOVQ	$('0'-1), AX; MOVQ	AX, X1; VPBROADCASTB	X1, Y1; \
	MOVQ	$('9'+1), AX; MOVQ	AX, X2; VPBROADCASTB	X2, Y2; \
	MOVQ	$'0', AX; MOVQ	AX, X3; VPBROADCASTB	X3, Y3

// SKEL_CHUNK compares the 32 bytes of a line at line with the skeleton's at
// skel and sets bit i of mask when byte i is right: it equals the
// skeleton's, or is a digit where the skeleton has '0' (a skeleton holds no
// other digit). A byte x is a digit when x > '0'-1 and '9'+1 > x, compared as
// signed bytes: bytes from 0x80 are negative, not digits. Y4 to Y7 are
// clobbered.
#define SKEL_CHUNK(line, skel, mask) \
	VMOVDQU	line, Y4; VMOVDQU	skel, Y5; \
	VPCMPGTB	Y1, Y4, Y6; VPCMPGTB	Y4, Y2, Y7; VPAND	Y6, Y7, Y6; \
	VPCMPEQB	Y3, Y5, Y7; VPAND	Y6, Y7, Y6; \
	VPCMPEQB	Y4, Y5, Y7; VPOR	Y6, Y7, Y6; \
	VPMOVMSKB	Y6, mask

// func skelEqualAVX2(line, skel []byte) bool
//
// Reports whether the skeleton of line (its decimal digits written as '0')
// is skel, both of the same length n ≥ 32: 32 bytes at a time, the last 32
// overlapping the ones before when n is not a multiple of 32. A byte is right
// when it equals skel's, or is a digit where skel has '0' (skel holds no
// other digit).
TEXT ·skelEqualAVX2(SB), NOSPLIT, $0-49
	MOVQ	line_base+0(FP), SI
	MOVQ	line_len+8(FP), BX
	MOVQ	skel_base+24(FP), DI
	SKEL_CONSTANTS
	XORQ	CX, CX

loop:
	LEAQ	32(CX), AX
	CMPQ	AX, BX
	JA	last
	SKEL_CHUNK((SI)(CX*1), (DI)(CX*1), DX)
	CMPL	DX, $0xffffffff
	JNE	differ
	ADDQ	$32, CX
	JMP	loop

last:
	CMPQ	CX, BX
	JEQ	same
	LEAQ	-32(BX), CX		// the last 32 bytes
	SKEL_CHUNK((SI)(CX*1), (DI)(CX*1), DX)
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

// func skelBatch(text []byte, ends []int32, from int, slots *skelSlots, out []int16)
//
// Looks up the lines of text that start at from and end (before their '\n')
// at ends[0], ends[1], … in the skeleton cache's slots, as lookup does, and
// writes to out[k] the slot holding line k's skeleton, or -1: none does, or
// the line is shorter than skelChunk (32, a compare) or longer than
// skelMaxLine bytes. It only reads the slots. The hash is skelHash: the
// skeleton of the line's 8 middle bytes (digits as '0', found as SKEL_CHUNK
// finds them), xor the length times 8, times skelHashMultiplier; its top
// skelBucketBits bits pick the bucket, whose two slots are tried in order.
// A slot is a skelEntry; the sizes and offsets come from go_asm.h (a
// slice's length is the word after its pointer). The compare runs from the
// line's first 32 bytes to its last 32, which may overlap the ones before.
TEXT ·skelBatch(SB), NOSPLIT, $0-88
	MOVQ	text_base+0(FP), SI
	MOVQ	ends_base+24(FP), R8
	MOVQ	ends_len+32(FP), R9
	LEAQ	(R8)(R9*4), R9		// the end of ends
	MOVQ	from+48(FP), R10	// the line's start
	MOVQ	slots+56(FP), DI
	MOVQ	out_base+64(FP), R11
	MOVQ	$const_skelHashMultiplier, R12
	SKEL_CONSTANTS

line:
	CMPQ	R8, R9
	JAE	done
	MOVLQSX	(R8), BX
	SUBQ	R10, BX			// n, the line's length
	CMPQ	BX, $const_skelChunk
	JLT	miss
	CMPQ	BX, $const_skelMaxLine
	JGT	miss
	MOVQ	BX, AX			// the hash
	SHRQ	$1, AX
	LEAQ	-4(R10)(AX*1), AX	// from + n/2 - 4
	VMOVQ	(SI)(AX*1), X4
	VPCMPGTB	X1, X4, X6	// x > '0'-1
	VPCMPGTB	X4, X2, X7	// '9'+1 > x
	VPAND	X6, X7, X6		// x is a digit
	VPANDN	X4, X6, X7		// x where not a digit
	VPAND	X3, X6, X6		// '0' where a digit
	VPOR	X6, X7, X7
	VMOVQ	X7, AX
	MOVQ	BX, R14
	SHLQ	$3, R14
	XORQ	R14, AX
	IMULQ	R12, AX
	MOVQ	AX, R14			// the hash
	SHRQ	$(64-const_skelBucketBits), AX
	ADDQ	AX, AX			// the bucket's first slot

try:
	IMUL3Q	$skelEntry__size, AX, DX
	CMPQ	skelEntry_hash(DI)(DX*1), R14
	JNE	next
	CMPQ	(skelEntry_skel+8)(DI)(DX*1), BX	// len(skel)
	JNE	next
	MOVQ	skelEntry_skel(DI)(DX*1), DX
	LEAQ	-32(DX)(BX*1), DX	// the skeleton's last 32 bytes
	LEAQ	-32(SI)(R10*1), R13
	ADDQ	BX, R13			// the line's last 32 bytes
	MOVQ	$32, CX
	SUBQ	BX, CX			// 32 - n: from the first 32 bytes

chunk:
	TESTQ	CX, CX
	JGE	last
	SKEL_CHUNK((R13)(CX*1), (DX)(CX*1), R15)
	CMPL	R15, $0xffffffff
	JNE	next
	ADDQ	$32, CX
	JMP	chunk

last:
	SKEL_CHUNK((R13), (DX), R15)
	CMPL	R15, $0xffffffff
	JNE	next
	MOVW	AX, (R11)		// found in slot AX
	JMP	advance

next:
	INCQ	AX
	TESTQ	$1, AX
	JNZ	try			// the bucket's second slot

miss:
	MOVW	$-1, (R11)

advance:
	MOVLQSX	(R8), R10
	INCQ	R10			// the next line starts after the '\n'
	ADDQ	$4, R8
	ADDQ	$2, R11
	JMP	line

done:
	VZEROUPPER
	RET
