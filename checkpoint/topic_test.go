package checkpoint

import (
	"context"
	"testing"
)

// createTopicForTest creates topic with n checkpoint messages, "Partition i" → offset i.
func createTopicForTest(t testing.TB, b *Broker, topic string, n int) {
	t.Helper()
	ctx := context.Background()
	a := newSystemAdmin(b.Addrs(), topic, "test-admin", DefaultDialTimeout)
	defer a.close()
	if err := a.createTopic(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p := newSystemProducer(b.Addrs(), topic, "test-producer", DefaultDialTimeout)
	p.start()
	defer p.close()
	for i := range n {
		cp := Checkpoint{Offsets: map[SSP]string{{"kafka", "in", int32(i)}: "0"}}
		if err := p.send(ctx, CheckpointKey(TaskName(i)).Encode(), cp.Encode()); err != nil {
			t.Fatal(err)
		}
	}
}
