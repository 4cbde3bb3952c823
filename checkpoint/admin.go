package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// systemAdmin is the model of Samza's KafkaSystemAdmin for the checkpoint topic:
// topic metadata, creation and deletion over a kafka-go Client with its own
// Transport, whose connections close with close().
type systemAdmin struct {
	topic       string
	brokers     []string
	clientID    string
	dialTimeout time.Duration

	client    *kafka.Client
	transport *kafka.Transport
}

// newSystemAdmin returns a started admin.
func newSystemAdmin(brokers []string, topic, clientID string, dialTimeout time.Duration) *systemAdmin {
	a := &systemAdmin{topic: topic, brokers: brokers, clientID: clientID, dialTimeout: dialTimeout}
	a.start()
	return a
}

// start makes the client again after close; it dials on the first request.
func (a *systemAdmin) start() {
	if a.client != nil {
		return
	}
	a.transport = &kafka.Transport{ClientID: a.clientID, DialTimeout: a.dialTimeout}
	a.client = &kafka.Client{Addr: kafka.TCP(a.brokers...), Timeout: 30 * time.Second, Transport: a.transport}
}

// offsets returns the oldest offset of partition 0 and the upcoming one (the offset
// the next message will get).
func (a *systemAdmin) offsets(ctx context.Context) (oldest, upcoming int64, err error) {
	if a.client == nil {
		return 0, 0, fmt.Errorf("metadata of %s: %w", a.topic, ErrNotStarted)
	}
	resp, err := a.client.ListOffsets(ctx, &kafka.ListOffsetsRequest{
		Topics: map[string][]kafka.OffsetRequest{a.topic: {kafka.FirstOffsetOf(0), kafka.LastOffsetOf(0)}},
	})
	if err != nil {
		return 0, 0, fmt.Errorf("metadata of %s: %w", a.topic, err)
	}
	for _, p := range resp.Topics[a.topic] {
		if p.Partition != 0 {
			continue
		}
		if p.Error != nil {
			return 0, 0, fmt.Errorf("metadata of %s: %w", a.topic, p.Error)
		}
		return p.FirstOffset, p.LastOffset, nil
	}
	return 0, 0, fmt.Errorf("metadata of %s: no partition 0", a.topic)
}

// brokerCount returns the number of brokers in the cluster.
func (a *systemAdmin) brokerCount(ctx context.Context) (int, error) {
	resp, err := a.client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{}})
	if err != nil {
		return 0, fmt.Errorf("cluster metadata: %w", err)
	}
	return len(resp.Brokers), nil
}

// createTopic creates the checkpoint topic as Samza does: one partition, compacted.
func (a *systemAdmin) createTopic(ctx context.Context, replicationFactor int) error {
	resp, err := a.client.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{
		Topic:             a.topic,
		NumPartitions:     1,
		ReplicationFactor: replicationFactor,
		ConfigEntries: []kafka.ConfigEntry{
			{ConfigName: "cleanup.policy", ConfigValue: "compact"},
			{ConfigName: "segment.bytes", ConfigValue: "26214400"},
		},
	}}})
	if err != nil {
		return fmt.Errorf("create topic %s: %w", a.topic, err)
	}
	if err := resp.Errors[a.topic]; err != nil {
		if errors.Is(err, kafka.TopicAlreadyExists) {
			return fmt.Errorf("%w: %s (choose another -job, or delete it)", ErrTopicExists, a.topic)
		}
		return fmt.Errorf("create topic %s: %w", a.topic, err)
	}
	return nil
}

// deleteTopic deletes the checkpoint topic.
func (a *systemAdmin) deleteTopic(ctx context.Context) error {
	resp, err := a.client.DeleteTopics(ctx, &kafka.DeleteTopicsRequest{Topics: []string{a.topic}})
	if err != nil {
		return fmt.Errorf("delete topic %s: %w", a.topic, err)
	}
	if err := resp.Errors[a.topic]; err != nil {
		return fmt.Errorf("delete topic %s: %w", a.topic, err)
	}
	return nil
}

// close drops the admin's connections.
func (a *systemAdmin) close() {
	if a.client == nil {
		return
	}
	a.transport.CloseIdleConnections()
	a.client, a.transport = nil, nil
}
