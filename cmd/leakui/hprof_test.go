package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/javatest"
)

// TestHprofLeakShape runs `leakui hprof` on a real dump of the SAMZA-2785 shape
// (analyze/hprof/testdata/LeakShape.java: 6 consumers of 2 MiB held by parked
// threads): the text names the suspect and its thread, -json carries the numbers,
// and -fail-share turns the suspect into exit status 3.
func TestHprofLeakShape(t *testing.T) {
	jh := javatest.Run(t, "../../analyze/hprof/testdata/LeakShape.java", true,
		[]string{"-XX:+UseSerialGC", "-Xmx128m"}, "6", "2097152", "100", "10")

	code, stdout, stderr := jvmRunCLI(t, "", "hprof", "-n", "5", jh.Dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"1. 6 instances of LeakShape$Consumer retain 12.0 MB",
		"accumulated in threads KafkaConsumerProxy-",
		"thread KafkaConsumerProxy-",
		".consumer → LeakShape$Consumer @0x",
		"Class histogram (by retained size)",
		"Dominator tree (top level, by retained size)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the text has no %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = jvmRunCLI(t, "", "hprof", "-json", "-n", "3", "-fail-share", "0.5", jh.Dump)
	if code != hprofFailExit || !strings.Contains(stderr, "more than -fail-share 0.5") {
		t.Fatalf("exit %d, stderr %q; want %d", code, stderr, hprofFailExit)
	}
	var got struct {
		Objects  int64 `json:"objects"`
		Suspects []struct {
			Holder          string  `json:"holder"`
			HolderInstances int64   `json:"holder_instances"`
			HolderRetained  int64   `json:"holder_retained"`
			Share           float64 `json:"share"`
			Sentence        string  `json:"sentence"`
			Path            []struct {
				Field string `json:"field"`
				Root  string `json:"root"`
			} `json:"path"`
		} `json:"suspects"`
		Histogram []json.RawMessage `json:"histogram"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(got.Suspects) == 0 || got.Suspects[0].Holder != "LeakShape$Consumer" || got.Suspects[0].HolderInstances != 6 ||
		got.Suspects[0].HolderRetained < 6*2097152 || got.Suspects[0].Share < 0.5 || len(got.Histogram) != 3 {
		t.Errorf("JSON %s", stdout)
	}
	if p := got.Suspects[0].Path; len(p) != 2 || p[1].Field != "consumer" || !strings.HasPrefix(p[0].Root, "thread KafkaConsumerProxy-") {
		t.Errorf("path %+v", p)
	}
	above := strconv.FormatFloat(min(got.Suspects[0].Share+0.001, 1), 'f', 4, 64)
	if code, _, _ := jvmRunCLI(t, "", "hprof", "-fail-share", above, jh.Dump); code != 0 {
		t.Errorf("exit %d with -fail-share %s, over the suspect's share %.4f", code, above, got.Suspects[0].Share)
	}
}

// TestHprofErrors checks the exit statuses of a usage mistake and of a file that is
// not a heap dump.
func TestHprofErrors(t *testing.T) {
	if code, _, _ := jvmRunCLI(t, "", "hprof"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	if code, _, _ := jvmRunCLI(t, "", "hprof", "-fail-share", "2", "x"); code != 2 {
		t.Errorf("-fail-share 2: exit %d, want 2", code)
	}
	path := jvmWriteFile(t, "not.hprof", "goroutine 1 [running]:\nmain.main()\n")
	code, _, stderr := jvmRunCLI(t, "", "hprof", path)
	if code != 1 || !strings.Contains(stderr, "not an HPROF heap dump") {
		t.Errorf("a goroutine dump: exit %d, %q", code, stderr)
	}
}
