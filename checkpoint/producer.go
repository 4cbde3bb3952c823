package checkpoint

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// systemProducer is the model of the checkpoint SystemProducer: a kafka-go Writer
// with its own Transport, so its connections close with close() and never mix with
// the consumers' in a measurement.
type systemProducer struct {
	writer    *kafka.Writer
	transport *kafka.Transport
}

func newSystemProducer(brokers []string, topic, clientID string, dialTimeout time.Duration) *systemProducer {
	t := &kafka.Transport{ClientID: clientID, DialTimeout: dialTimeout}
	return &systemProducer{
		transport: t,
		writer: &kafka.Writer{
			Addr:         kafka.TCP(brokers...),
			Topic:        topic,
			Balancer:     &kafka.LeastBytes{},
			RequiredAcks: kafka.RequireAll,
			BatchSize:    1, // send and flush every checkpoint, like send+flush in Samza
			WriteTimeout: 30 * time.Second,
			Transport:    t,
		},
	}
}

// send writes one message and waits for the broker's acknowledgement.
func (p *systemProducer) send(ctx context.Context, key, value []byte) error {
	if err := p.writer.WriteMessages(ctx, kafka.Message{Key: key, Value: value}); err != nil {
		return fmt.Errorf("write to %s: %w", p.writer.Topic, err)
	}
	return nil
}

// close flushes and closes the writer and drops its connections.
func (p *systemProducer) close() error {
	err := p.writer.Close()
	p.transport.CloseIdleConnections()
	return err
}
