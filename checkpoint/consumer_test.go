package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// startConsumer returns a started consumer of topic at offset 0.
func startConsumer(t *testing.T, f *ConsumerFactory, topic string) *SystemConsumer {
	t.Helper()
	c := f.New()
	if err := c.Register(SSP{"kafka", topic, 0}, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConsumerPollsEveryMessageInOrder(t *testing.T) {
	const n = 250 // more than the buffer and kafka-go's queue together
	b := startBroker(t)
	topic := "poll-" + jobName(t)
	createTopicForTest(t, b, topic, n)
	f := NewConsumerFactory(ConsumerConfig{Brokers: b.Addrs(), FetchThreshold: 50}, nil)
	c := startConsumer(t, f, topic)
	defer c.Stop()
	ctx := context.Background()
	var got []Envelope
	for len(got) < n {
		envs, err := c.Poll(ctx, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) == 0 {
			t.Fatalf("poll timed out after %d of %d messages", len(got), n)
		}
		if len(envs) > 50 {
			t.Fatalf("one poll returned %d envelopes, more than the buffer of 50", len(envs))
		}
		got = append(got, envs...)
	}
	for i, e := range got {
		if e.Offset != int64(i) || string(e.Key) != string(CheckpointKey(TaskName(i)).Encode()) {
			t.Fatalf("envelope %d: offset %d key %q", i, e.Offset, e.Key)
		}
	}
	if c.Position() != n {
		t.Errorf("position %d, want %d", c.Position(), n)
	}
	envs, err := c.Poll(ctx, 50*time.Millisecond)
	if len(envs) != 0 || err != nil {
		t.Errorf("poll at the end: %d envelopes, err %v; want none", len(envs), err)
	}
}

func TestConsumerLifecycleLikeSamza(t *testing.T) {
	b := startBroker(t)
	topic := "life-" + jobName(t)
	createTopicForTest(t, b, topic, 1)
	var log bytes.Buffer
	f := NewConsumerFactory(ConsumerConfig{Brokers: b.Addrs()}, NewLog(&log))
	c := f.New()
	if _, err := c.Poll(context.Background(), time.Millisecond); !errors.Is(err, ErrNotStarted) {
		t.Errorf("poll before start: %v, want ErrNotStarted", err)
	}
	if err := c.Start(); !errors.Is(err, ErrNotStarted) {
		t.Errorf("start without a registered SSP: %v, want ErrNotStarted", err)
	}
	if err := c.Register(SSP{"kafka", topic, 0}, 0); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Register(SSP{"kafka", topic, 0}, 0); err == nil {
		t.Error("registering a started consumer succeeded")
	}
	c.Stop()
	c.Stop()
	// Samza checks the started flag first: a start after stop is a "second" start.
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Only a consumer stopped before it ever started is "a stopped consumer".
	never := f.New()
	if err := never.Register(SSP{"kafka", topic, 0}, 0); err != nil {
		t.Fatal(err)
	}
	never.Stop()
	if err := never.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Poll(context.Background(), time.Second); !errors.Is(err, ErrConsumerStopped) {
		t.Errorf("poll after stop: %v, want ErrConsumerStopped", err)
	}
	id := c.String()
	if id != "kafka:kafka_consumer-leakui_checkpoint-1" {
		t.Errorf("consumer id %q, want upstream's systemName:clientId of the default job", id)
	}
	for _, l := range []struct {
		line string
		want int
	}{
		{"[WARN] " + id + ": Attempting to start the consumer for the second (or more) time.", 2},
		{"[WARN] " + id + ": Attempting to stop stopped consumer.", 1},
		{"[INFO] " + id + ": Stopping Samza kafkaConsumer \n", 2}, // c's and never's: one id for both
		{"Shutting down KafkaConsumerProxy poll thread " + c.PollThreadName() + " for consumerProxy-kafka-kafka_consumer-leakui_checkpoint-1\n", 1},
		{"[" + c.PollThreadName() + "] KafkaConsumerProxy [INFO] Starting consumer poll thread " + c.PollThreadName() + " for system kafka\n", 1},
		{"[ERROR] " + id + ": Consumer is not subscribed to any SSPs", 1},
		{"[ERROR] " + never.String() + ": Attempting to start a stopped consumer", 1},
	} {
		if n := strings.Count(log.String(), l.line); n != l.want {
			t.Errorf("log has %d × %q, want %d:\n%s", n, l.line, l.want, log.String())
		}
	}
	if s := f.Stats(); s.Starts != 1 || s.Stops != 2 || s.Open != 0 || s.Connections != 0 {
		t.Errorf("stats %+v, want 1 start, 2 stops, nothing open", s)
	}
	// Every consumer of the job has the job's client id; the poll thread's name
	// tells them apart.
	if d := f.New(); d.ClientID() != c.ClientID() || d.PollThreadName() == c.PollThreadName() {
		t.Errorf("client ids %q and %q, poll threads %q and %q; want one client id, two threads", d.ClientID(), c.ClientID(), d.PollThreadName(), c.PollThreadName())
	}
}

func TestStopWakesUpAFetchWaitingOnTheBroker(t *testing.T) {
	b := startBroker(t)
	topic := "wake-" + jobName(t)
	createTopicForTest(t, b, topic, 1)
	// A long poll of a minute: without the wake-up, Stop would wait for it, as
	// kafka-go's Reader.Close does (segmentio/kafka-go#428).
	f := NewConsumerFactory(ConsumerConfig{Brokers: b.Addrs(), FetchMaxWait: time.Minute}, nil)
	c := startConsumer(t, f, topic)
	if envs, err := c.Poll(context.Background(), 5*time.Second); len(envs) != 1 || err != nil {
		t.Fatalf("poll: %d envelopes, %v", len(envs), err)
	}
	time.Sleep(100 * time.Millisecond) // the reader is now waiting on the broker
	began := time.Now()
	c.Stop()
	if d := time.Since(began); d > 20*time.Second {
		t.Errorf("Stop took %v: it waited for the long poll instead of waking it up", d)
	}
	if n := CountGoroutines(PollLoopFrame) + CountGoroutines(ReaderFrame); n != 0 {
		t.Errorf("%d consumer goroutines after Stop", n)
	}
}

func TestALeakedConsumerStopsFetchingWhenItsBufferIsFull(t *testing.T) {
	const threshold = 20
	b := startBroker(t)
	topic := "full-" + jobName(t)
	createTopicForTest(t, b, topic, 5*threshold)
	// A short fetch.max.wait: a consumer that still fetched would show it in the window.
	f := NewConsumerFactory(ConsumerConfig{Brokers: b.Addrs(), FetchThreshold: threshold, FetchMaxBytes: 1024,
		FetchMaxWait: 500 * time.Millisecond}, nil)
	c := startConsumer(t, f, topic) // never polled, like a leaked consumer
	defer c.Stop()
	// Wait until both buffers are full, the poll loop's and kafka-go's queue, and the
	// fetch that may have been in flight when they filled has landed.
	eventually(t, func() bool {
		s := c.reader.Stats()
		return c.Buffered() == threshold && s.QueueLength == s.QueueCapacity
	}, func() string { return "the consumer never filled its buffers" })
	eventually(t, func() bool {
		c.reader.Stats() // reset kafka-go's counters
		time.Sleep(300 * time.Millisecond)
		return c.reader.Stats().Fetches == 0
	}, func() string { return "a consumer with full buffers keeps fetching" })
	c.reader.Stats()
	time.Sleep(1500 * time.Millisecond) // three fetch.max.wait periods
	if s := c.reader.Stats(); s.Fetches != 0 || s.Dials != 0 {
		t.Errorf("a full consumer made %d fetches and %d dials in 1.5 s, want none", s.Fetches, s.Dials)
	}
}

func TestACaughtUpConsumerWaitsOnTheLongPoll(t *testing.T) {
	b := startBroker(t)
	topic := "idle-" + jobName(t)
	createTopicForTest(t, b, topic, 1)
	f := NewConsumerFactory(ConsumerConfig{Brokers: b.Addrs()}, nil) // fetch.max.wait 2 s
	c := startConsumer(t, f, topic)
	defer c.Stop()
	eventually(t, func() bool { return c.Buffered() == 1 },
		func() string { return "the only message never arrived" })
	c.reader.Stats()
	time.Sleep(3 * time.Second)
	// The broker holds each fetch 1 s: about 3 fetches in 3 s, one more in flight,
	// and at most one reconnect if a loaded machine misses kafka-go's deadline. A busy
	// loop would make hundreds.
	if s := c.reader.Stats(); s.Fetches > 4 || s.Dials > 1 {
		t.Errorf("an idle consumer made %d fetches and %d dials in 3 s, want at most 4 and 1", s.Fetches, s.Dials)
	}
}

func TestConsumerWithABadConfigFailsInsteadOfPanicking(t *testing.T) {
	for name, c := range map[string]struct {
		brokers []string
		ssp     SSP
	}{
		"no brokers":         {nil, SSP{"kafka", "t", 0}},
		"no topic":           {[]string{"127.0.0.1:9"}, SSP{"kafka", "", 0}},
		"negative partition": {[]string{"127.0.0.1:9"}, SSP{"kafka", "t", -1}},
	} {
		f := NewConsumerFactory(ConsumerConfig{Brokers: c.brokers}, nil)
		sc := f.New()
		if err := sc.Register(c.ssp, 0); err != nil {
			t.Fatal(err)
		}
		if err := sc.Start(); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: Start = %v, want ErrInvalidConfig", name, err)
		}
		sc.Stop()
		if s := f.Stats(); s.Starts != 0 || s.Open != 0 {
			t.Errorf("%s: stats %+v after a failed start", name, s)
		}
	}
}
