package logs_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/leakui/leakui/analyze/logs"
)

// A web handler counts an upload with a preset in one call and renders the
// report (package web writes its page, JSON and Markdown); here, the text
// summary of `leakui count`.
func ExampleCount() {
	log := `2020-02-25 03:21:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 12
2020-02-25 03:21:00.002 [Samza KafkaConsumerProxy Poll Thread-4 - kafka] KafkaConsumerProxy [INFO] Starting consumer poll thread Samza KafkaConsumerProxy Poll Thread-4 - kafka for system kafka
2020-02-25 03:21:00.003 [main] KafkaSystemConsumer [INFO] kafka:kafka_consumer-orders-1: Consumer started
2020-02-25 03:22:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 13
2020-02-25 03:22:00.002 [Samza KafkaConsumerProxy Poll Thread-7 - kafka] KafkaConsumerProxy [INFO] Starting consumer poll thread Samza KafkaConsumerProxy Poll Thread-7 - kafka for system kafka
2020-02-25 03:22:00.003 [main] KafkaSystemConsumer [INFO] kafka:kafka_consumer-orders-1: Consumer started
2020-02-25 03:22:00.004 [main] KafkaCheckpointManager [INFO] Stopping system consumer
2020-02-25 03:22:00.005 [main] KafkaSystemConsumer [INFO] kafka:kafka_consumer-orders-1: Stopping Samza kafkaConsumer 
2020-02-25 03:22:00.006 [main] KafkaConsumerProxy [INFO] Shutting down KafkaConsumerProxy poll thread Samza KafkaConsumerProxy Poll Thread-7 - kafka for consumerProxy-kafka-kafka_consumer-orders-1
`
	rep, err := logs.Count(context.Background(), logs.CountOptions{Preset: "samza-2785"},
		logs.Input{Name: "container.log", Reader: strings.NewReader(log)})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := rep.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 file, 9 lines, 1.2 kB
	//
	//   lines pattern
	//       2 Starting the checkpoint SystemConsumer from oldest offset
	//       1 Stopping system consumer
	//       2 : Consumer started
	//       1 Stopping Samza kafkaConsumer
	//       2 Starting consumer poll thread
	//       1 Shutting down KafkaConsumerProxy poll thread
	//
	//   starts  closes  still open pair
	//        2       1           1 checkpoint consumers
	//        2       1           1 kafka consumers
	//        2       1           1 consumer poll threads
	//
	// kafka consumers: 1 keys started, 1 closed, 1 not closed as often as started
	// The balance rests on the counts: key “kafka:kafka_consumer-orders-1” was started again while still open (2 open at once), so a key names several things, not one. Samza names a KafkaSystemConsumer systemName:clientId (KafkaSystemConsumer.java:292-293), and the client id, kafka_consumer-<job name>-<job id>, is the same for every consumer of a job (KafkaSystemFactory.scala:45, KafkaConsumerConfig.java:147-154): the pair “consumer poll threads” names each consumer by its poll thread instead.
	// open  starts  key                            first start                              last start
	// 1     2       kafka:kafka_consumer-orders-1  container.log:3 2020-02-25 03:21:00.003  container.log:6 2020-02-25 03:22:00.003
	//
	// consumer poll threads: 2 keys started, 1 closed, 1 not closed as often as started
	// open  starts  key                                             first start                              last start
	// 1     1       Samza KafkaConsumerProxy Poll Thread-4 - kafka  container.log:2 2020-02-25 03:21:00.002  container.log:2 2020-02-25 03:21:00.002
	//
	// counts over time: 61 buckets of 1s from 2020-02-25 03:21:00.000 to 2020-02-25 03:22:00.000 (-json for the series)
}
