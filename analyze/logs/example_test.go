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
2020-02-25 03:21:00.004 [main] KafkaCheckpointManager [INFO] Stopping system consumer
2020-02-25 03:22:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 13
2020-02-25 03:22:00.002 [main] KafkaSystemConsumer [INFO] kafka:consumer-b: Consumer started
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
	// 1 file, 4 lines, 423 B
	//
	//   lines pattern
	//       2 Starting the checkpoint SystemConsumer from oldest offset
	//       1 Stopping system consumer
	//       1 : Consumer started
	//       0 Stopping Samza kafkaConsumer
	//
	//   starts  closes  still open pair
	//        2       1           1 checkpoint consumers
	//        1       0           1 kafka consumers
	//
	// kafka consumers: 1 keys started, 0 closed, 1 not closed as often as started
	// open  starts  key               first start                              last start
	// 1     1       kafka:consumer-b  container.log:4 2020-02-25 03:22:00.002  container.log:4 2020-02-25 03:22:00.002
	//
	// counts over time: 61 buckets of 1s from 2020-02-25 03:21:00.000 to 2020-02-25 03:22:00.000 (-json for the series)
}
