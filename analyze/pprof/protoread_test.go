package pprof

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestLoadProfileRefusesABombAtItsFirstBadByte loads a gzipped profile.proto that
// starts like a real one and goes on with 1 GiB of zeros: it is refused as
// malformed after reading a sliver of the file, not after a gigabyte.
func TestLoadProfileRefusesABombAtItsFirstBadByte(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bomb.pb.gz")
	if err := hostile.WriteProfileBomb(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	in := &countingReader{r: f}
	_, err = Open(Reader(in), Options{Limit: analyze.DefaultMaxDecompressed})
	if !isErr(err, analyze.ErrMalformed) || !strings.Contains(err.Error(), "field number 0") {
		t.Fatalf("err %v, want ErrMalformed naming field number 0", err)
	}
	if in.n > 256<<10 {
		t.Errorf("read %d of the file's %d compressed bytes before refusing it", in.n, st.Size())
	}
}

// TestProtoStreamAgreesWithTheDecoder: everything the streaming reader refuses, the
// decoder refuses too, fed in pieces of any size.
func TestProtoStreamAgreesWithTheDecoder(t *testing.T) {
	good := hostile.HostileNamesProfile()
	for _, piece := range []int{1, 3, 7, 4096} {
		b, _, err := readProto(&chunkedReader{b: good, n: piece}, 1<<20, 0, nil)
		if err != nil || !bytes.Equal(b, good) {
			t.Errorf("pieces of %d: a valid profile was refused: %v", piece, err)
		}
	}
	for _, bad := range [][]byte{
		append(good[:len(good):len(good)], 0),
		append(good[:len(good):len(good)], 1<<3|3),
		append(good[:len(good):len(good)], bytes.Repeat([]byte{0x88}, 11)...),
	} {
		_, _, err := readProto(&chunkedReader{b: bad, n: 5}, 1<<20, 0, nil)
		if !isErr(err, analyze.ErrMalformed) {
			t.Errorf("%x…: stream check err %v, want ErrMalformed", bad[len(bad)-3:], err)
		}
		if _, _, derr := decodeProfileProto(bad); derr == nil {
			t.Errorf("the decoder accepts what the stream check refuses")
		}
	}
}

// chunkedReader returns b n bytes at a time.
type chunkedReader struct {
	b []byte
	n int
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.b))
	copy(p, c.b[:k])
	c.b = c.b[k:]
	return k, nil
}

// FuzzProtoStream: the streaming reader never refuses a message the decoder's
// top-level walk and its census accept, whatever the read sizes (the census walks
// only the Samples and Locations the decoder walks too, so what it refuses the
// decoder refuses).
func FuzzProtoStream(f *testing.F) {
	f.Add(hostile.SmallProfile(), 3)
	f.Add(hostile.NegativeValues(), 1)
	f.Add([]byte{0x0a, 0x00, 0x00}, 2)
	f.Fuzz(func(t *testing.T, data []byte, piece int) {
		if piece <= 0 {
			piece = 1
		}
		_, _, serr := readProto(&chunkedReader{b: data, n: piece}, 1<<20, 0, nil)
		werr := walkMessage(data, func(int, int, uint64, []byte) error { return nil })
		_, cerr := censusOf(data)
		if serr != nil && werr == nil && cerr == nil {
			t.Fatalf("the stream check refuses (%v) what walkMessage and the census accept", serr)
		}
	})
}
