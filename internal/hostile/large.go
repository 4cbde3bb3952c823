package hostile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// A gzip or zstd file may hold several members (frames) one after the other; a
// reader returns their contents concatenated (gzip's multistream mode, zstd's
// frame sequence, as gunzip and zstd -d do). The large inputs use that: one member
// of a repeated block is compressed once and written many times, so that a
// gigabyte of content costs milliseconds to make, even in a race-instrumented
// test binary.

// repeatMember writes count copies of one compressed member of block.
func repeatMember(w io.Writer, member []byte, count int) error {
	for range count {
		if _, err := w.Write(member); err != nil {
			return err
		}
	}
	return nil
}

func gzipMember(block []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(block)
	zw.Close()
	return buf.Bytes()
}

func zstdFrame(block []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	return enc.EncodeAll(block, nil)
}

// Bomb is 1 GiB of zeros.
const Bomb = 1 << 30

// WriteGzipBomb writes Bomb zeros gzipped: about 1 MiB on disk.
func WriteGzipBomb(path string) error {
	return writeFile(path, func(w io.Writer) error {
		return repeatMember(w, gzipMember(make([]byte, 1<<20)), Bomb>>20)
	})
}

// WriteZstdBomb writes Bomb zeros as zstd frames.
func WriteZstdBomb(path string) error {
	return writeFile(path, func(w io.Writer) error {
		return repeatMember(w, zstdFrame(make([]byte, 1<<20)), Bomb>>20)
	})
}

// WriteProfileBomb writes a gzipped profile.proto that begins like a real one (a
// sample type, a string table) and goes on with 1 GiB of zero bytes: it passes
// kind detection, so only the loader can stop it.
func WriteProfileBomb(path string) error {
	return writeFile(path, func(w io.Writer) error {
		head := gzipMember(Profile{SampleTypes: Inuse}.Encode())
		if _, err := w.Write(head); err != nil {
			return err
		}
		return repeatMember(w, gzipMember(make([]byte, 1<<20)), Bomb>>20)
	})
}

// LongLine is the length of WriteLongLineLog's line, 200 MB.
const LongLine = 200 << 20

// WriteLongLineLog writes a gzipped log of one line: a timestamp, LongLine bytes
// in all, and a newline.
func WriteLongLineLog(path string) error {
	return writeFile(path, func(w io.Writer) error {
		const ts = "2024-01-01 00:00:00.000 [main] INFO "
		block := bytes.Repeat([]byte("x"), 1<<20)
		first := append([]byte(ts), block[len(ts):]...)
		if _, err := w.Write(gzipMember(first)); err != nil {
			return err
		}
		if err := repeatMember(w, gzipMember(block), LongLine>>20-1); err != nil {
			return err
		}
		_, err := w.Write(gzipMember([]byte("\n")))
		return err
	})
}

// DeepFrames is the stack depth of WriteDeepStack's sample.
const DeepFrames = 100_000

// DeepStackProfile is a profile of one sample of 4096 bytes whose stack has
// DeepFrames distinct functions, main.deep000001 (the leaf) to main.deep100000.
func DeepStackProfile() []byte {
	stack := make([]string, DeepFrames)
	for i := range stack {
		stack[i] = fmt.Sprintf("main.deep%06d", i+1)
	}
	return Profile{SampleTypes: Inuse, Samples: []Sample{{Stack: stack, Values: []int64{4096}}}}.Encode()
}

// WriteDeepStack writes DeepStackProfile gzipped.
func WriteDeepStack(path string) error {
	return writeFile(path, func(w io.Writer) error {
		_, err := w.Write(Gzip(DeepStackProfile()))
		return err
	})
}

// ManySamples is the sample count of WriteManySamples, and ManyFunctions the
// number of distinct leaf functions they spread over.
const (
	ManySamples   = 5_000_000
	ManyFunctions = 1000
)

// WriteManySamples writes a gzipped profile of ManySamples samples of 1 byte
// each; sample i is in main.tiny%04d (i mod ManyFunctions) called from main.main.
// Its inuse_space total is therefore ManySamples bytes and each function's flat
// value ManySamples/ManyFunctions.
func WriteManySamples(path string) error {
	return writeFile(path, func(w io.Writer) error {
		// The tables: functions 1..ManyFunctions are the leaves, ManyFunctions+1
		// is main.main.
		p := Profile{SampleTypes: Inuse}
		e := newEncoder()
		for _, st := range p.SampleTypes {
			e.msg(fieldSampleType, e.valueType(st[0], st[1]))
		}
		for i := range ManyFunctions {
			e.function(fmt.Sprintf("main.tiny%04d", i))
		}
		mainID := e.function("main.main")
		if _, err := w.Write(gzipMember(e.finish())); err != nil {
			return err
		}
		// The samples, in blocks of 100,000 (a multiple of ManyFunctions) that
		// are all alike: one gzip member written ManySamples/100,000 times.
		const perBlock = 100_000
		var block []byte
		for i := range perBlock {
			block = appendMsg(block, fieldSample, sampleMsg([]uint64{uint64(i%ManyFunctions) + 1, mainID}, []int64{1}))
		}
		return repeatMember(w, gzipMember(block), ManySamples/perBlock)
	})
}

// WriteExecutable copies the first MiB of an executable (such as the test binary,
// os.Executable) to path.
func WriteExecutable(path, executable string) error {
	f, err := os.Open(executable)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeFile(path, func(w io.Writer) error {
		_, err := io.CopyN(w, f, 1<<20)
		return err
	})
}

// writeFile creates path and fills it with fill through a buffer.
func writeFile(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = fill(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
