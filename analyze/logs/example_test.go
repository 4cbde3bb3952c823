package logs_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze/logs"
)

// A web handler counts an upload with a preset in one call and renders the
// report; here, the Markdown evidence for a ticket.
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
	fmt.Print(rep.Markdown())
	// Output:
	// Log counts over `container.log`: 4 lines, 423 B.
	//
	// **checkpoint consumers**
	//
	// - `Starting the checkpoint SystemConsumer from oldest offset`: 2
	// - `Stopping system consumer`: 1
	// - still open: 1
	//
	// **kafka consumers**
	//
	// - `: Consumer started`: 1
	// - `Stopping Samza kafkaConsumer`: 0
	// - still open: 1
	// - keys (`(\S+): (?:Consumer started\|Stopping Samza kafkaConsumer)`): 1 started, 0 closed, 1 never closed
	//
	// | key | starts | closes | first start | last start |
	// |---|---:|---:|---|---|
	// | `kafka:consumer-b` | 1 | 0 | container.log:4 2020-02-25 03:22:00.002 | container.log:4 2020-02-25 03:22:00.002 |
}
