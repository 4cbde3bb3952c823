package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"
)

// FuzzSpec decodes any JSON run request as POST /api/runs does and normalizes
// it: nothing panics; a refusal wraps ErrInvalidSpec or ErrTooLarge; an accepted
// spec names a known workload and variant, stays within the limits, normalizes
// to itself again, and makes a child command line of flag and value pairs.
func FuzzSpec(f *testing.F) {
	for _, s := range []string{
		`{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":30,"tasks":4}`,
		`{"workload":"checkpoint","variant":"guard-start","mode":"standby","cycles":5001}`,
		`{"workload":"recovery","variant":"drain","codec":"gzip","partitions":64,"segments":1000,"batches":100000,"records":10000}`,
		`{"workload":"recovery","codec":"lz4","value_bytes":-1}`,
		`{"workload":"nope"}`,
		`{"workload":"checkpoint","cycles":9223372036854775807}`,
	} {
		f.Add([]byte(s))
	}
	limits := Limits{MaxCycles: 5000}.withDefaults()
	f.Fuzz(func(t *testing.T, body []byte) {
		var s Spec
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if dec.Decode(&s) != nil {
			return
		}
		err := s.Normalize(limits)
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("an error that wraps no sentinel: %v", err)
			}
			return
		}
		switch s.Workload {
		case WorkloadCheckpoint:
			if !slices.Contains(checkpointVariants, s.Variant) || s.Cycles < 1 || s.Cycles > limits.MaxCycles || s.Tasks < 1 || s.Tasks > 256 {
				t.Fatalf("accepted %+v", s)
			}
		case WorkloadRecovery:
			if !slices.Contains(recoveryVariants, s.Variant) || s.Partitions*s.Segments*s.Batches*s.Records > limits.MaxRecords || s.ValueBytes < 1 {
				t.Fatalf("accepted %+v", s)
			}
		default:
			t.Fatalf("accepted workload %q", s.Workload)
		}
		again := s
		if err := again.Normalize(limits); err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("normalizing twice: %+v → %+v (%v)", s, again, err)
		}
		args := s.Args()
		if len(args) < 4 || args[0] != "work" || args[1] != s.Workload || len(args)%2 != 0 {
			t.Fatalf("child args %q", args)
		}
		for i := 2; i < len(args); i += 2 {
			if args[i][0] != '-' || args[i+1] == "" {
				t.Fatalf("child args %q", args)
			}
		}
	})
}

// FuzzTarget parses any -target value and any capture request: nothing panics;
// an accepted target is a name and an http(s) URL with a host that parses
// again to itself; an accepted capture names a configured target within the
// interval and count bounds.
func FuzzTarget(f *testing.F) {
	f.Add("app=http://127.0.0.1:6060", `{"target":"app","what":"goroutine","interval":1000000000,"count":3}`)
	f.Add("=http://x", `{"target":"app","interval":-1}`)
	f.Add("x=ftp://host/", `{"target":"x","what":"heap","count":201}`)
	f.Add("a=https://user:pw@[::1]:8/debug/", `{}`)
	f.Fuzz(func(t *testing.T, flag, capture string) {
		name, base, err := ParseTarget(flag)
		if err != nil {
			return
		}
		u, uerr := url.Parse(base)
		if name == "" || uerr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("accepted %q as %q → %q", flag, name, base)
		}
		if n2, b2, err := ParseTarget(name + "=" + base); err != nil || n2 != name || b2 != base {
			t.Fatalf("%q=%q does not parse to itself: %q %q %v", name, base, n2, b2, err)
		}
		var ts TargetSpec
		if json.Unmarshal([]byte(capture), &ts) != nil {
			return
		}
		if err := ts.Normalize(Targets{name: base}); err != nil {
			if !errors.Is(err, ErrInvalidSpec) && !errors.Is(err, ErrUnknownTarget) {
				t.Fatalf("an error that wraps no sentinel: %v", err)
			}
			return
		}
		if ts.Target != name || ts.Interval < time.Second || ts.Interval > time.Hour || ts.Count < 3 || ts.Count > 200 {
			t.Fatalf("accepted %+v", ts)
		}
	})
}
