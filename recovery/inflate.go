package recovery

import (
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"unsafe"
)

// This file is a streaming DEFLATE decoder (RFC 1951) whose window and Huffman
// tables live in memory the caller provides: the off-heap block of a gzip deep
// iterator. It models zlib's inflate as a JVM Inflater uses it, so that the
// memory an unclosed iterator holds is outside the Go heap, as the JVM's is
// outside the Java heap. Only the 512-byte input buffer and the small decoder
// struct are on the Go heap, like InflaterInputStream's buffer and object.

const (
	windowMask  = GzipWindowBytes - 1
	maxMatch    = 258
	fastBits    = 9
	maxCodeBits = 15
)

// errInflate marks every DEFLATE and gzip format error.
var errInflate = fmt.Errorf("%w: gzip", ErrCorruptRecord)

func inflateError(msg string) error { return fmt.Errorf("%w: %s", errInflate, msg) }

// huffTable is a canonical Huffman code: counts per length and symbols in code
// order (as in zlib's puff.c), plus a table for codes of up to fastBits bits.
// An entry of fast is symbol<<4 | length, or 0 for a longer code.
type huffTable struct {
	count [maxCodeBits + 1]uint16
	sym   [288]uint16
	fast  [1 << fastBits]uint16
}

// inflateTables is the decoding state kept off the heap.
type inflateTables struct {
	lens [286 + 30]uint16 // code lengths of the dynamic block being read
	clen [19]uint16       // code lengths of the code-length code
	lit  huffTable
	dist huffTable
	cl   huffTable
}

// The state must fit the room reserved for it in the off-heap block.
var _ [GzipStateBytes - unsafe.Sizeof(inflateTables{})]byte

// The fixed codes of block type 1 are shared and read-only, like zlib's static
// fixed tables.
var fixedLit, fixedDist huffTable

func init() {
	var lens [288]uint16
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	fixedLit.build(lens[:])
	for i := range 30 {
		lens[i] = 5
	}
	fixedDist.build(lens[:30])
}

// build makes the code from its lengths. It returns the number of unused codes:
// 0 for a complete code, more for an incomplete one, negative for an
// over-subscribed one (which is invalid).
func (h *huffTable) build(lengths []uint16) int {
	h.count = [maxCodeBits + 1]uint16{}
	for _, l := range lengths {
		h.count[l]++
	}
	h.fast = [1 << fastBits]uint16{}
	if int(h.count[0]) == len(lengths) {
		return 0 // no codes: complete, but every decode fails
	}
	left := 1
	for l := 1; l <= maxCodeBits; l++ {
		left <<= 1
		left -= int(h.count[l])
		if left < 0 {
			return left
		}
	}
	var offs [maxCodeBits + 1]uint16
	for l := 1; l < maxCodeBits; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	for sym, l := range lengths {
		if l != 0 {
			h.sym[offs[l]] = uint16(sym)
			offs[l]++
		}
	}
	code, index := 0, 0
	for l := 1; l <= fastBits; l++ {
		for range int(h.count[l]) {
			rev := int(bits.Reverse16(uint16(code)) >> (16 - l))
			entry := h.sym[index]<<4 | uint16(l)
			for j := rev; j < 1<<fastBits; j += 1 << l {
				h.fast[j] = entry
			}
			code++
			index++
		}
		code <<= 1
	}
	return left
}

// Length and distance bases and extra bits (RFC 1951 3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clenOrder   = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// Decoder states between blocks and inside them.
const (
	stateBlockHeader = iota
	stateStored
	stateHuffman
	stateBlockDone // the final block is decoded
)

// inflater is a streaming DEFLATE decoder. Output goes into the window, a ring
// buffer of the last GzipWindowBytes bytes; the reader takes it from there.
type inflater struct {
	win    []byte         // off-heap, len GzipWindowBytes
	tables *inflateTables // off-heap

	in    []byte // the compressed input
	inPos int

	bits  uint64
	nbits uint

	state      int
	final      bool
	storedLeft int
	lit, dist  *huffTable
	copyLen    int
	copyDist   int

	wpos        int // bytes written to the window since the start
	rpos        int // bytes read out of the window
	memberStart int // wpos at the start of the current gzip member
	crcPos      int // wpos up to which crc covers the output
	crc         uint32
}

// init points the decoder at its off-heap memory and its input.
func (z *inflater) init(mem []byte, in []byte) {
	z.win = mem[:GzipWindowBytes:GzipWindowBytes]
	z.tables = (*inflateTables)(unsafe.Pointer(&mem[GzipWindowBytes]))
	z.in = in
}

// unread is the decoded output not yet read.
func (z *inflater) unread() int { return z.wpos - z.rpos }

// refill tops the bit buffer up to at least 57 bits, or to what the input has.
func (z *inflater) refill() {
	for z.nbits <= 56 && z.inPos < len(z.in) {
		z.bits |= uint64(z.in[z.inPos]) << z.nbits
		z.inPos++
		z.nbits += 8
	}
}

// inputError is the error of a stream that ends too early.
func (z *inflater) inputError() error {
	return fmt.Errorf("%w: %w", errInflate, io.ErrUnexpectedEOF)
}

// getBits consumes n ≤ 32 bits, least significant first.
func (z *inflater) getBits(n uint) (uint32, error) {
	if z.nbits < n {
		z.refill()
		if z.nbits < n {
			return 0, z.inputError()
		}
	}
	v := uint32(z.bits & (1<<n - 1))
	z.bits >>= n
	z.nbits -= n
	return v, nil
}

// alignedByte reads one byte on a byte boundary: from the bit buffer first, then
// from the input. ok is false at the end of the input.
func (z *inflater) alignedByte() (b byte, ok bool) {
	if z.nbits >= 8 {
		b = byte(z.bits)
		z.bits >>= 8
		z.nbits -= 8
		return b, true
	}
	if z.inPos == len(z.in) {
		return 0, false
	}
	b = z.in[z.inPos]
	z.inPos++
	return b, true
}

// align drops the bits up to the next byte boundary.
func (z *inflater) align() {
	drop := z.nbits % 8
	z.bits >>= drop
	z.nbits -= drop
}

// decodeSym reads one symbol of code h.
func (z *inflater) decodeSym(h *huffTable) (int, error) {
	if z.nbits < maxCodeBits {
		z.refill()
	}
	if e := h.fast[z.bits&(1<<fastBits-1)]; e != 0 {
		l := uint(e & 15)
		if l > z.nbits {
			return 0, z.inputError()
		}
		z.bits >>= l
		z.nbits -= l
		return int(e >> 4), nil
	}
	code, first, index := 0, 0, 0
	b := z.bits
	for l := uint(1); l <= maxCodeBits; l++ {
		if l > z.nbits {
			return 0, z.inputError()
		}
		code |= int(b & 1)
		b >>= 1
		count := int(h.count[l])
		if code-count < first {
			z.bits >>= l
			z.nbits -= l
			return int(h.sym[index+code-first]), nil
		}
		index += count
		first += count
		first <<= 1
		code <<= 1
	}
	return 0, inflateError("invalid Huffman code")
}

// decode produces output until at least target bytes are unread, the window is
// full or the final block ends. It updates the output CRC on the way out.
func (z *inflater) decode(target int) error {
	target = min(target, GzipWindowBytes)
	err := z.decodeBlocks(target)
	z.updateCRC()
	return err
}

func (z *inflater) decodeBlocks(target int) error {
	for z.unread() < target {
		switch z.state {
		case stateBlockHeader:
			if err := z.blockHeader(); err != nil {
				return err
			}
		case stateStored:
			if err := z.stored(); err != nil {
				return err
			}
			if z.storedLeft > 0 {
				return nil // window full
			}
			z.endBlock()
		case stateHuffman:
			done, err := z.huffman(target)
			if err != nil || !done {
				return err
			}
			z.endBlock()
		case stateBlockDone:
			return nil
		}
	}
	return nil
}

func (z *inflater) endBlock() {
	if z.final {
		z.state = stateBlockDone
	} else {
		z.state = stateBlockHeader
	}
}

// blockHeader reads a block header and prepares its codes.
func (z *inflater) blockHeader() error {
	h, err := z.getBits(3)
	if err != nil {
		return err
	}
	z.final = h&1 == 1
	switch h >> 1 {
	case 0:
		z.align()
		lenNlen, err := z.getBits(32)
		if err != nil {
			return err
		}
		n, nn := lenNlen&0xffff, lenNlen>>16
		if n != ^nn&0xffff {
			return inflateError("stored block length does not match its complement")
		}
		z.storedLeft = int(n)
		z.state = stateStored
	case 1:
		z.lit, z.dist = &fixedLit, &fixedDist
		z.state = stateHuffman
	case 2:
		if err := z.dynamicCodes(); err != nil {
			return err
		}
		z.lit, z.dist = &z.tables.lit, &z.tables.dist
		z.state = stateHuffman
	default:
		return inflateError("invalid block type 3")
	}
	return nil
}

// dynamicCodes reads the code lengths of a type 2 block into the off-heap tables.
func (z *inflater) dynamicCodes() error {
	t := z.tables
	head, err := z.getBits(14)
	if err != nil {
		return err
	}
	nlen := int(head&0x1f) + 257
	ndist := int(head>>5&0x1f) + 1
	ncode := int(head>>10) + 4
	if nlen > 286 || ndist > 30 {
		return inflateError("too many length or distance codes")
	}
	t.clen = [19]uint16{}
	for i := range ncode {
		v, err := z.getBits(3)
		if err != nil {
			return err
		}
		t.clen[clenOrder[i]] = uint16(v)
	}
	if t.cl.build(t.clen[:]) != 0 {
		return inflateError("incomplete code-length code")
	}
	lens := t.lens[:nlen+ndist]
	for i := 0; i < len(lens); {
		sym, err := z.decodeSym(&t.cl)
		if err != nil {
			return err
		}
		if sym < 16 {
			lens[i] = uint16(sym)
			i++
			continue
		}
		var fill uint16
		var rep uint32
		switch sym {
		case 16:
			if i == 0 {
				return inflateError("repeat with no first length")
			}
			fill = lens[i-1]
			rep, err = z.getBits(2)
			rep += 3
		case 17:
			rep, err = z.getBits(3)
			rep += 3
		default:
			rep, err = z.getBits(7)
			rep += 11
		}
		if err != nil {
			return err
		}
		if i+int(rep) > len(lens) {
			return inflateError("too many code lengths")
		}
		for range rep {
			lens[i] = fill
			i++
		}
	}
	if lens[256] == 0 {
		return inflateError("no end-of-block code")
	}
	if left := t.lit.build(lens[:nlen]); left < 0 || (left > 0 && nlen-int(t.lit.count[0]) != 1) {
		return inflateError("invalid literal/length code")
	}
	if left := t.dist.build(lens[nlen:]); left < 0 || (left > 0 && ndist-int(t.dist.count[0]) != 1) {
		return inflateError("invalid distance code")
	}
	return nil
}

// stored copies a stored block into the window, as far as it has room.
func (z *inflater) stored() error {
	for z.storedLeft > 0 && z.unread() < GzipWindowBytes {
		b, ok := z.alignedByte()
		if !ok {
			return z.inputError()
		}
		z.win[z.wpos&windowMask] = b
		z.wpos++
		z.storedLeft--
	}
	return nil
}

// huffman decodes symbols of a type 1 or 2 block until the block ends (done), the
// window is full or target bytes are unread.
func (z *inflater) huffman(target int) (done bool, err error) {
	win := z.win
	for {
		room := GzipWindowBytes - z.unread()
		if z.copyLen > 0 {
			n := min(z.copyLen, room)
			from := z.wpos - z.copyDist
			for i := range n {
				win[(z.wpos+i)&windowMask] = win[(from+i)&windowMask]
			}
			z.wpos += n
			z.copyLen -= n
			room -= n
			if z.copyLen > 0 {
				return false, nil
			}
		}
		if room == 0 || z.unread() >= target {
			return false, nil
		}
		sym, err := z.decodeSym(z.lit)
		if err != nil {
			return false, err
		}
		switch {
		case sym < 256:
			win[z.wpos&windowMask] = byte(sym)
			z.wpos++
			continue
		case sym == 256:
			return true, nil
		case sym > 285:
			return false, inflateError("invalid length symbol")
		}
		sym -= 257
		extra, err := z.getBits(uint(lengthExtra[sym]))
		if err != nil {
			return false, err
		}
		length := int(lengthBase[sym]) + int(extra)
		dsym, err := z.decodeSym(z.dist)
		if err != nil {
			return false, err
		}
		if dsym >= 30 {
			return false, inflateError("invalid distance symbol")
		}
		extra, err = z.getBits(uint(distExtra[dsym]))
		if err != nil {
			return false, err
		}
		dist := int(distBase[dsym]) + int(extra)
		if dist > z.wpos-z.memberStart {
			return false, inflateError("distance too far back")
		}
		z.copyLen, z.copyDist = length, dist
	}
}

// updateCRC adds the output written since the last call to the CRC-32 of the
// member. It runs after every decode, before the window can wrap over it.
func (z *inflater) updateCRC() {
	for z.crcPos < z.wpos {
		start := z.crcPos & windowMask
		n := min(z.wpos-z.crcPos, GzipWindowBytes-start)
		z.crc = crc32.Update(z.crc, crc32.IEEETable, z.win[start:start+n])
		z.crcPos += n
	}
}

// readOut copies unread output into p.
func (z *inflater) readOut(p []byte) int {
	n := 0
	for n < len(p) && z.rpos < z.wpos {
		start := z.rpos & windowMask
		k := copy(p[n:], z.win[start:min(GzipWindowBytes, start+z.wpos-z.rpos)])
		n += k
		z.rpos += k
	}
	return n
}
