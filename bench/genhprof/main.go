// Command genhprof writes valid heap dumps of pathological shapes for bench/: a
// reference chain or ring a million objects long, one array of ten million
// references, a class hierarchy a hundred thousand classes deep, and twenty
// thousand zlib streams held through finalizers (internal/hostile).
//
//	go run ./bench/genhprof -shape chain -n 1000000 -o chain.hprof
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/leakui/leakui/internal/hostile"
)

func main() {
	shape := flag.String("shape", "chain", "the dump's `shape`: chain, ring, reverse-chain, wide, deep-classes or native-holder")
	n := flag.Int("n", 1_000_000, "the chain's or ring's objects, the array's references, the hierarchy's depth or the streams")
	items := flag.Int("items", 100_000, "for wide: the distinct objects the array's references point at")
	out := flag.String("o", "", "the output `file` (default: stdout)")
	flag.Parse()
	var write func(io.Writer) error
	switch *shape {
	case "chain":
		write = func(w io.Writer) error { return hostile.ChainDump(w, *n, false, false) }
	case "reverse-chain":
		write = func(w io.Writer) error { return hostile.ChainDump(w, *n, false, true) }
	case "ring":
		write = func(w io.Writer) error { return hostile.ChainDump(w, *n, true, false) }
	case "wide":
		write = func(w io.Writer) error { return hostile.WideArrayDump(w, *n, *items) }
	case "deep-classes":
		write = func(w io.Writer) error { return hostile.DeepClassesDump(w, *n) }
	case "native-holder":
		write = func(w io.Writer) error { return hostile.NativeHolderDump(w, *n, 512) }
	default:
		fmt.Fprintf(os.Stderr, "genhprof: unknown shape %q\n", *shape)
		os.Exit(2)
	}
	var err error
	if *out == "" {
		err = write(os.Stdout)
	} else {
		err = hostile.WriteHprof(*out, write)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genhprof:", err)
		os.Exit(1)
	}
}
