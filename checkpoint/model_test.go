package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

func TestCheckpointsReadBackEqualTheOnesWritten(t *testing.T) {
	const cycles, tasks = 6, 5
	b := startBroker(t)
	for _, v := range Variants {
		for _, m := range Modes {
			t.Run(fmt.Sprintf("%s/%s", v, m), func(t *testing.T) {
				// Steady: a new manager per rebalance reads the whole topic, which holds
				// tasks × k messages in rebalance k (the seed and k−1 rebalances).
				res, w := run(t, b, Config{Scenario: Steady, Variant: v, Mode: m, Cycles: cycles, Tasks: tasks, History: 1})
				if res.MissingReads != 0 {
					t.Errorf("%d reads found no checkpoint", res.MissingReads)
				}
				if want := int64(tasks * cycles * (cycles + 1) / 2); res.MessagesRead != want {
					t.Errorf("messages read = %d, want %d", res.MessagesRead, want)
				}
				wantTopicReads := int64(cycles) // one read per manager
				if m == Standby {
					wantTopicReads = cycles * tasks // and a merge on every later read
				}
				if res.TopicReads != wantTopicReads {
					t.Errorf("topic reads = %d, want %d", res.TopicReads, wantTopicReads)
				}
				if res.Containers != cycles || res.FirstReads != cycles {
					t.Errorf("containers %d, first reads %d; want %d each", res.Containers, res.FirstReads, cycles)
				}
				if res.CheckpointsRead != cycles*tasks || res.CheckpointsWritten != cycles*tasks {
					t.Errorf("read/written = %d/%d, want %d each", res.CheckpointsRead, res.CheckpointsWritten, cycles*tasks)
				}
				// Anchor: a plain kafka-go reader, not the model, reads the topic.
				last, n := readTopic(t, b, w.Topic())
				if n != tasks*(cycles+1) {
					t.Errorf("topic holds %d messages, want %d (seed + %d cycles × %d tasks)", n, tasks*(cycles+1), cycles, tasks)
				}
				for i := range tasks {
					if got, want := last[TaskName(i)], w.checkpointFor(cycles, i); !got.Equal(want) {
						t.Errorf("%s: last checkpoint on the topic %v, want %v", TaskName(i), got, want)
					}
				}
			})
		}
	}
}

// readTopic reads a whole topic with a bare kafka-go Reader and returns the last
// checkpoint of every key and the number of messages.
func readTopic(t *testing.T, b *Broker, topic string) (map[string]Checkpoint, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := kafka.DialLeader(ctx, "tcp", b.Addrs()[0], topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	end, err := conn.ReadLastOffset()
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: b.Addrs(), Topic: topic, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	last := map[string]Checkpoint{}
	n := 0
	for int64(n) < end {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("read %s at %d of %d: %v", topic, n, end, err)
		}
		key, err := DecodeKey(m.Key)
		if err != nil {
			t.Fatal(err)
		}
		if key != CheckpointKey(key.TaskName) {
			t.Fatalf("offset %d: key %s, want a CheckpointV1 key of GroupByPartitionFactory", m.Offset, key)
		}
		cp, err := DecodeCheckpoint(m.Value)
		if err != nil {
			t.Fatal(err)
		}
		last[key.TaskName] = cp
		n++
	}
	return last, n
}

func TestManagerReadsWhatAnotherManagerWrote(t *testing.T) {
	b := startBroker(t)
	topic := "manager-" + jobName(t)
	createTopicForTest(t, b, topic, 0)
	f := NewConsumerFactory(ConsumerConfig{Brokers: b.Addrs()}, nil)
	newManager := func(m Mode) *CheckpointManager {
		cm, err := NewCheckpointManager(ManagerConfig{Topic: topic, Brokers: b.Addrs(), Mode: m, Consumers: f})
		if err != nil {
			t.Fatal(err)
		}
		cm.Register("Partition 0")
		cm.Register("Partition 1")
		return cm
	}
	ctx := context.Background()
	written := Checkpoint{Offsets: map[SSP]string{{"kafka", "clicks", 0}: "17", {"kafka", "views", 3}: "99"}}
	writer := newManager(Active)
	if err := writer.WriteCheckpoint(ctx, "Partition 0", written); !errors.Is(err, ErrNotStarted) {
		t.Errorf("write before Start: %v, want ErrNotStarted", err)
	}
	if err := writer.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := writer.ReadLastCheckpoint(ctx, "Partition 0"); err != nil {
		t.Fatal(err)
	}
	if err := writer.WriteCheckpoint(ctx, "Partition 0", written); err != nil {
		t.Fatal(err)
	}
	if err := writer.WriteCheckpoint(ctx, "Partition 7", written); !errors.Is(err, ErrTaskNotRegistered) {
		t.Errorf("write for an unknown task: %v, want ErrTaskNotRegistered", err)
	}
	writer.Stop()

	reader := newManager(Standby)
	if err := reader.Start(ctx); err != nil {
		t.Fatal(err)
	}
	got, ok, err := reader.ReadLastCheckpoint(ctx, "Partition 0")
	if err != nil || !ok || !got.Equal(written) {
		t.Errorf("read back %v (ok %v, err %v), want %v", got, ok, err, written)
	}
	if _, ok, err := reader.ReadLastCheckpoint(ctx, "Partition 1"); ok || err != nil {
		t.Errorf("Partition 1 has a checkpoint (ok %v, err %v); none was written", ok, err)
	}
	reader.Stop()
	if s := f.Stats(); s.Starts != 2 || s.Stops != 2 || s.Open != 0 {
		t.Errorf("consumer stats %+v, want 2 starts, 2 stops, none open", s)
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	b := startBroker(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := New(Config{Brokers: b.Addrs(), Job: jobName(t), Cycles: MaxCycles, Tasks: 2, Log: io.Discard,
		Progress: func(p Progress) {
			if p.Cycle == 5 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	// A storm at the default read fraction: no container of the first 62 reads.
	if res.Cycle != 5 || res.ConsumerStarts != 5 || res.OpenConsumers != 5 {
		t.Errorf("cancelled after cycle %d with %d starts, %d open; want 5, 5, 5", res.Cycle, res.ConsumerStarts, res.OpenConsumers)
	}
	if _, err := w.Run(context.Background()); !errors.Is(err, ErrAlreadyRun) {
		t.Errorf("second Run = %v, want ErrAlreadyRun", err)
	}
	if reaped, err := w.Close(); reaped != 5 || err != nil {
		t.Errorf("Close reaped %d (err %v), want 5", reaped, err)
	}
}
