package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/internal/jvmtext"
)

// jvmRunCLI runs a leakui command in-process and returns its exit status, stdout and
// stderr.
func jvmRunCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdio{strings.NewReader(stdin), &out, &errb})
	return code, out.String(), errb.String()
}

func jvmWriteFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHistoFixtureJSON runs `leakui histo -json` on the histogram inside the TDA
// thread dump log and checks the contract fields against the file's Total line.
func TestHistoFixtureJSON(t *testing.T) {
	path := fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log")
	code, stdout, stderr := jvmRunCLI(t, "", "histo", "-json", "-n", "3", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		TotalInstances int64 `json:"total_instances"`
		TotalBytes     int64 `json:"total_bytes"`
		Classes        []struct {
			Name      string `json:"name"`
			Instances int64  `json:"instances"`
			Bytes     int64  `json:"bytes"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	total := strings.Fields(greptest.Output(t, "-a", "^Total", path)[0])
	first := strings.Fields(greptest.Output(t, "-a", "-m1", `^ *1: `, path)[0])
	if strconv.FormatInt(got.TotalInstances, 10) != total[1] || strconv.FormatInt(got.TotalBytes, 10) != total[2] {
		t.Errorf("totals %d/%d, the file's Total line %v", got.TotalInstances, got.TotalBytes, total)
	}
	if len(got.Classes) != 3 || got.Classes[0].Name != first[3] || strconv.FormatInt(got.Classes[0].Bytes, 10) != first[2] {
		t.Errorf("classes %+v, the file's first row %v", got.Classes, first)
	}
}

// TestHistoDiffAndInputs diffs two histograms written in jmap's layout (the target
// gzipped, the base on standard input) and checks the top growth and the suspects.
func TestHistoDiffAndInputs(t *testing.T) {
	base := jvmtext.Histogram(jvmtext.JDK9, []jvmtext.Class{
		{Name: "[B", Module: "java.base@17.0.2", Instances: 9000, Bytes: 90000000},
		{Name: "java.lang.String", Module: "java.base@17.0.2", Instances: 50000, Bytes: 1200000},
		{Name: "org.apache.samza.system.kafka.KafkaSystemConsumer", Instances: 14, Bytes: 1232},
	})
	target := jvmtext.Histogram(jvmtext.JDK9, []jvmtext.Class{
		{Name: "[B", Module: "java.base@17.0.2", Instances: 1750000, Bytes: 8000000000},
		{Name: "java.lang.String", Module: "java.base@17.0.2", Instances: 51000, Bytes: 1224000},
		{Name: "org.apache.samza.system.kafka.KafkaSystemConsumer", Instances: 1741, Bytes: 153208},
	})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(target))
	zw.Close()
	targetPath := jvmWriteFile(t, "target.histo.gz", gz.String())

	code, stdout, stderr := jvmRunCLI(t, base, "histo", "-json", targetPath, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		TotalBytes int64 `json:"total_bytes"`
		Classes    []struct {
			Name        string `json:"name"`
			Instances   int64  `json:"instances"`
			Bytes       int64  `json:"bytes"`
			BaseBytes   int64  `json:"base_bytes"`
			TargetBytes int64  `json:"target_bytes"`
		} `json:"classes"`
		Suspects []struct {
			Name      string `json:"name"`
			Instances int64  `json:"instances"`
		} `json:"suspects"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if got.TotalBytes != (8000000000+1224000+153208)-(90000000+1200000+1232) {
		t.Errorf("total_bytes %d, want target − base", got.TotalBytes)
	}
	if c := got.Classes[0]; c.Name != "[B" || c.Bytes != 8000000000-90000000 || c.BaseBytes != 90000000 || c.TargetBytes != 8000000000 {
		t.Errorf("top growth %+v, want [B +7.91 GB", c)
	}
	if len(got.Suspects) != 1 || got.Suspects[0].Name != "org.apache.samza.system.kafka.KafkaSystemConsumer" || got.Suspects[0].Instances != 1727 {
		t.Errorf("suspects %+v, want KafkaSystemConsumer +1727", got.Suspects)
	}

	code, stdout, _ = jvmRunCLI(t, base, "histo", "-sort", "instances", targetPath, "-")
	if code != 0 || !strings.Contains(stdout, "Application classes with more instances (leak suspects):") ||
		!strings.Contains(stdout, "+1,727  org.apache.samza.system.kafka.KafkaSystemConsumer") {
		t.Errorf("text diff (exit %d):\n%s", code, stdout)
	}
}

// TestHistoErrors checks usage mistakes and files of the wrong kind.
func TestHistoErrors(t *testing.T) {
	nmt := fixtures.Path(t, "jvm", "nmt-summary-jdk17-bytes.txt")
	if code, _, stderr := jvmRunCLI(t, "", "histo", nmt); code != 1 || !strings.Contains(stderr, "try leakui nmt") {
		t.Errorf("histo of an NMT report: exit %d, %q; want 1 and a hint", code, stderr)
	}
	if code, _, _ := jvmRunCLI(t, "", "histo"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
	if code, _, _ := jvmRunCLI(t, "", "histo", "-sort", "size", nmt); code != 2 {
		t.Errorf("bad -sort: exit %d, want 2", code)
	}
	two := jvmWriteFile(t, "two.log", jvmtext.Histogram(jvmtext.JDK9, []jvmtext.Class{{Name: "A", Instances: 1, Bytes: 16}})+"log line\n"+jvmtext.Histogram(jvmtext.JDK9, []jvmtext.Class{{Name: "A", Instances: 5, Bytes: 80}}))
	if code, stdout, stderr := jvmRunCLI(t, "", "histo", "-json", "-snapshot", "1", two); code != 0 || !strings.Contains(stdout, `"total_bytes": 16`) || !strings.Contains(stderr, "holds 2 class histograms") {
		t.Errorf("-snapshot 1: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := jvmRunCLI(t, "", "histo", "-snapshot", "3", two); code != 1 || !strings.Contains(stderr, "invalid parameter") {
		t.Errorf("-snapshot 3 of 2: exit %d, %q", code, stderr)
	}
}
