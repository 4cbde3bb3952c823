package recovery

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

// gzipInputs returns gzip streams of the kinds a log holds and the edge cases of
// the format, each made by a real gzip writer, with the data they hold.
func gzipInputs(t testing.TB) map[string][2][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 100_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	text := bytes.Repeat([]byte(`{"event":"page_view","path":"/products/1234","user":"u-000042"} `), 2000)
	mixed := append(append([]byte{}, text[:30_000]...), random[:20_000]...)
	out := map[string][2][]byte{}
	std := func(name string, data []byte, level int, mutate func(*stdgzip.Writer)) {
		var buf bytes.Buffer
		w, err := stdgzip.NewWriterLevel(&buf, level)
		if err != nil {
			t.Fatal(err)
		}
		if mutate != nil {
			mutate(w)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out[name] = [2][]byte{buf.Bytes(), data}
	}
	std("empty", nil, stdgzip.DefaultCompression, nil)
	std("one byte", []byte{'x'}, stdgzip.DefaultCompression, nil)
	std("text default", text, stdgzip.DefaultCompression, nil)
	std("text best", text, stdgzip.BestCompression, nil)
	std("text stored", text[:70_000], stdgzip.NoCompression, nil)
	std("text huffman only", text, stdgzip.HuffmanOnly, nil)
	std("random", random, stdgzip.DefaultCompression, nil)
	std("mixed best speed", mixed, stdgzip.BestSpeed, nil)
	std("header fields", text[:5000], stdgzip.DefaultCompression, func(w *stdgzip.Writer) {
		w.Name, w.Comment, w.Extra = "segment.log", "a comment", []byte("extra field")
	})
	var kbuf bytes.Buffer
	kw, _ := kgzip.NewWriterLevel(&kbuf, kgzip.DefaultCompression)
	kw.Write(mixed)
	kw.Close()
	out["klauspost default"] = [2][]byte{kbuf.Bytes(), mixed}
	multi := append(append([]byte{}, out["text default"][0]...), out["one byte"][0]...)
	out["two members"] = [2][]byte{multi, append(append([]byte{}, text...), 'x')}
	return out
}

func TestGzipReaderMatchesStandardLibrary(t *testing.T) {
	for name, in := range gzipInputs(t) {
		t.Run(name, func(t *testing.T) {
			for _, chunk := range []int{1, 7, 4096, 1 << 20} {
				if chunk == 1 && len(in[1]) > 10_000 {
					continue // byte-sized reads of big inputs are TestGzipReaderReadByte's job
				}
				g, err := newGzipReader(in[0])
				if err != nil {
					t.Fatal(err)
				}
				var got []byte
				buf := make([]byte, chunk)
				for {
					n, err := g.Read(buf)
					got = append(got, buf[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("chunk %d: %v", chunk, err)
					}
				}
				g.Close()
				if !bytes.Equal(got, in[1]) {
					t.Fatalf("chunk %d: decoded %d bytes, want %d (equal prefix %d)", chunk, len(got), len(in[1]), commonPrefix(got, in[1]))
				}
			}
		})
	}
}

func TestGzipReaderReadByte(t *testing.T) {
	in := gzipInputs(t)["text default"]
	g, err := newGzipReader(in[0])
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var got []byte
	for {
		b, err := g.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if !bytes.Equal(got, in[1]) {
		t.Fatalf("ReadByte decoded %d bytes, want %d", len(got), len(in[1]))
	}
}

func TestGzipReaderRejectsDamage(t *testing.T) {
	in := gzipInputs(t)["text default"][0]
	cases := map[string][]byte{
		"truncated":       in[:len(in)/2],
		"no trailer":      in[:len(in)-8],
		"bad crc":         flip(in, len(in)-6),
		"bad size":        flip(in, len(in)-2),
		"bad magic":       flip(in, 0),
		"bad method":      flip(in, 2),
		"garbage after":   append(append([]byte{}, in...), 0x00, 0x01),
		"empty input":     nil,
		"block type 3":    append(append([]byte{}, in[:10]...), 0x07),
		"corrupt deflate": flip(in, 40),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			g, err := newGzipReader(data)
			if err == nil {
				_, err = io.Copy(io.Discard, g)
				g.Close()
			}
			if err == nil {
				t.Fatal("damaged stream decoded without error")
			}
			if !errors.Is(err, ErrCorruptRecord) {
				t.Fatalf("error %v does not wrap ErrCorruptRecord", err)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0x55
	return c
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
