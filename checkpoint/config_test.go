package checkpoint

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

func TestConfigRejectsBadValues(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"variant", Config{Variant: "leakier"}},
		{"mode", Config{Mode: "passive"}},
		{"negative cycles", Config{Cycles: -1}},
		{"too many cycles", Config{Cycles: MaxCycles + 1}},
		{"too many tasks", Config{Tasks: MaxTasks + 1}},
		{"job with a space", Config{Job: "my job"}},
		{"job with a slash", Config{Job: "a/b"}},
		{"job id with a newline", Config{JobID: "1\n2"}},
		{"long job", Config{Job: strings.Repeat("j", 101)}},
		{"broker without port", Config{Brokers: []string{"localhost"}}},
		{"fetch threshold", Config{FetchThreshold: -5}},
		{"scenario", Config{Scenario: "hurricane"}},
		{"negative read fraction", Config{ReadFraction: -0.1}},
		{"read fraction above 1", Config{ReadFraction: 1.5}},
	} {
		if _, err := New(c.cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", c.name, err)
		}
	}
	w, err := New(Config{Job: "my_job", JobID: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Topic() != "__samza_checkpoint_ver_1_for_my-job_2" {
		t.Errorf("topic %q", w.Topic())
	}
	if w.cfg.Variant != Leaky || w.cfg.Mode != Active || w.cfg.Scenario != Storm || w.cfg.ReadFraction != DefaultReadFraction ||
		w.cfg.Cycles != 100 || w.cfg.Tasks != 8 {
		t.Errorf("defaults %+v", w.cfg)
	}
}

func TestStormScheduleSpreadsTheReadsEvenly(t *testing.T) {
	count := func(sc Scenario, f float64, n int) (reads int) {
		for k := 1; k <= n; k++ {
			if reachesRead(sc, f, k) {
				reads++
			}
		}
		return reads
	}
	for _, c := range []struct {
		sc   Scenario
		f    float64
		n    int
		want int
	}{
		{Storm, DefaultReadFraction, 1741, 14}, // the seed's 14 stops of 1741 starts
		{Storm, DefaultReadFraction, 100, 1},
		{Storm, 0.1, 20, 2},
		{Storm, 1, 50, 50},
		{Steady, DefaultReadFraction, 30, 30},
		{Reuse, 0.5, 30, 30},
	} {
		if got := count(c.sc, c.f, c.n); got != c.want {
			t.Errorf("%s with fraction %v: %d of %d rebalances read, want %d", c.sc, c.f, got, c.n, c.want)
		}
	}
}

func TestParseVariantAndMode(t *testing.T) {
	for _, v := range Variants {
		if got, err := ParseVariant(string(v)); got != v || err != nil {
			t.Errorf("ParseVariant(%q) = %q, %v", v, got, err)
		}
	}
	if _, err := ParseVariant("Leaky"); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "leaky|pr1674|reset|guard-start") {
		t.Errorf("ParseVariant(Leaky) = %v", err)
	}
	if m, err := ParseMode("standby"); m != Standby || err != nil || m.StopConsumerAfterFirstRead() {
		t.Errorf("ParseMode(standby) = %q, %v", m, err)
	}
	if !Active.StopConsumerAfterFirstRead() {
		t.Error("active containers must stop the consumer after the first read")
	}
}

func TestParseBrokers(t *testing.T) {
	got, err := ParseBrokers(" a:9092, b.example:19092 ,,[::1]:9093")
	if err != nil || strings.Join(got, ",") != "a:9092,b.example:19092,[::1]:9093" {
		t.Errorf("ParseBrokers = %q, %v", got, err)
	}
	for _, bad := range []string{"", ",", "a", "a:0", "a:65536", ":9092", "a:b", "a b:1", "http://a:1"} {
		if _, err := ParseBrokers(bad); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("ParseBrokers(%q) = %v, want ErrInvalidConfig", bad, err)
		}
	}
}

func TestUnreachableBrokersFailWithOneLine(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	// A listener that accepts and never answers: the check must time out, not hang.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := silent.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	defer func() {
		if c, ok := <-accepted; ok {
			c.Close()
		}
	}()

	err = CheckBrokers(context.Background(), []string{refused, silent.Addr().String()}, 300*time.Millisecond)
	if !errors.Is(err, ErrBrokerUnreachable) {
		t.Fatalf("CheckBrokers = %v, want ErrBrokerUnreachable", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, refused) || !strings.Contains(msg, silent.Addr().String()) {
		t.Errorf("error is not one line naming both brokers: %q", msg)
	}

	w, err := New(Config{Brokers: []string{refused}, DialTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Run(context.Background()); !errors.Is(err, ErrBrokerUnreachable) {
		t.Errorf("Run against %s = %v, want ErrBrokerUnreachable", refused, err)
	}
	if reaped, err := w.Close(); reaped != 0 || err != nil {
		t.Errorf("Close = %d, %v", reaped, err)
	}
}

func TestASecondRunOnTheSameTopicIsRefusedUntilCloseDeletesIt(t *testing.T) {
	b := startBroker(t)
	cfg := Config{Brokers: b.Addrs(), Job: jobName(t), Cycles: 2, Tasks: 1}
	first, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	second, _ := New(cfg)
	if _, err := second.Run(context.Background()); !errors.Is(err, ErrTopicExists) {
		t.Errorf("second run on %s = %v, want ErrTopicExists", second.Topic(), err)
	}
	second.Close()
	if _, err := first.Close(); err != nil {
		t.Fatalf("Close (deletes the topic): %v", err)
	}
	third, _ := New(cfg)
	defer third.Close()
	if _, err := third.Run(context.Background()); err != nil {
		t.Errorf("run after the topic was deleted: %v", err)
	}
}
