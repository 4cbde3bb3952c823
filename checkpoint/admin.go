package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// systemAdmin is the model of Samza's KafkaSystemAdmin for the checkpoint topic.
// Like upstream's, whose offsets come from its metadata KafkaConsumer
// (KafkaSystemAdmin.java:136) and whose stop() closes that consumer and its
// AdminClient (KafkaSystemAdmin.java:190-202), it reads the topic's offsets over
// one connection that close() closes, leaving nothing behind (see leaderConn).
// Topic metadata, creation and deletion, done once a run, go through a kafka-go
// Client made on demand, whose connections close() drops too.
type systemAdmin struct {
	topic       string
	brokers     []string
	clientID    string
	dialTimeout time.Duration

	started   bool
	leader    *leaderConn
	client    *kafka.Client
	transport *kafka.Transport
}

// newSystemAdmin returns a started admin.
func newSystemAdmin(brokers []string, topic, clientID string, dialTimeout time.Duration) *systemAdmin {
	a := &systemAdmin{topic: topic, brokers: brokers, clientID: clientID, dialTimeout: dialTimeout}
	a.start()
	return a
}

// start starts the admin again after close; it dials on the first request.
func (a *systemAdmin) start() {
	if a.started {
		return
	}
	a.started = true
	a.leader = newLeaderConn(a.brokers, a.topic, a.clientID, a.dialTimeout, 30*time.Second)
}

// kafkaClient returns the admin's client for the cluster-wide requests, made on
// first use.
func (a *systemAdmin) kafkaClient() (*kafka.Client, error) {
	if !a.started {
		return nil, ErrNotStarted
	}
	if a.client == nil {
		a.transport = &kafka.Transport{ClientID: a.clientID, DialTimeout: a.dialTimeout}
		a.client = &kafka.Client{Addr: kafka.TCP(a.brokers...), Timeout: 30 * time.Second, Transport: a.transport}
	}
	return a.client, nil
}

// offsets returns the oldest offset of partition 0 and the upcoming one (the offset
// the next message will get), asking the partition's leader.
func (a *systemAdmin) offsets(ctx context.Context) (oldest, upcoming int64, err error) {
	if !a.started {
		return 0, 0, fmt.Errorf("metadata of %s: %w", a.topic, ErrNotStarted)
	}
	err = a.leader.do(ctx, func(c *kafka.Conn) error {
		var err error
		if oldest, err = c.ReadFirstOffset(); err != nil {
			return err
		}
		upcoming, err = c.ReadLastOffset()
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("metadata of %s: %w", a.topic, err)
	}
	return oldest, upcoming, nil
}

// brokerCount returns the number of brokers in the cluster.
func (a *systemAdmin) brokerCount(ctx context.Context) (int, error) {
	client, err := a.kafkaClient()
	if err != nil {
		return 0, fmt.Errorf("cluster metadata: %w", err)
	}
	resp, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{}})
	if err != nil {
		return 0, fmt.Errorf("cluster metadata: %w", err)
	}
	return len(resp.Brokers), nil
}

// createTopic creates the checkpoint topic as Samza does: one partition, compacted.
func (a *systemAdmin) createTopic(ctx context.Context, replicationFactor int) error {
	client, err := a.kafkaClient()
	if err != nil {
		return fmt.Errorf("create topic %s: %w", a.topic, err)
	}
	resp, err := client.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{
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
	client, err := a.kafkaClient()
	if err != nil {
		return fmt.Errorf("delete topic %s: %w", a.topic, err)
	}
	resp, err := client.DeleteTopics(ctx, &kafka.DeleteTopicsRequest{Topics: []string{a.topic}})
	if err != nil {
		return fmt.Errorf("delete topic %s: %w", a.topic, err)
	}
	if err := resp.Errors[a.topic]; err != nil {
		return fmt.Errorf("delete topic %s: %w", a.topic, err)
	}
	return nil
}

// close closes the admin's connection and drops its client's.
func (a *systemAdmin) close() {
	if !a.started {
		return
	}
	a.started = false
	a.leader.close()
	a.leader = nil
	if a.client != nil {
		a.transport.CloseIdleConnections()
		a.client, a.transport = nil, nil
	}
}
