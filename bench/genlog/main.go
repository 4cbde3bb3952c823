// genlog writes a synthetic, Samza-style container log of about -mb MiB to stdout.
// It models a standalone job whose KafkaCheckpointManager is restarted on every
// rebalance (SAMZA-2785): each rebalance starts a checkpoint consumer, only a few are
// stopped. Lines carry timestamps, thread names, clientIds and noise, like a real log.
//
//	go run ./bench/genlog -mb 1024 -seed 1 > big.log
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"time"
)

func main() {
	mb := flag.Int("mb", 256, "approximate size in MiB")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	rng := rand.New(rand.NewSource(*seed))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	t := time.Date(2023, 6, 21, 0, 0, 0, 0, time.UTC)
	limit := int64(*mb) << 20
	var n int64
	clients := 0
	noise := []string{
		"o.a.s.c.SamzaContainer [INFO] Entering run loop.",
		"o.a.s.s.k.KafkaSystemConsumer [DEBUG] kafka-system-consumer-checkpoint: Fetched 0 messages for ssp SystemStreamPartition [kafka, __samza_checkpoint_ver_1_for_seas-cloud-consumer_1, 0]",
		"o.a.k.c.c.i.ConsumerCoordinator [INFO] [Consumer clientId=consumer-seas-1, groupId=seas] Setting offset for partition events-3 to the committed offset FetchPosition{offset=81237123}",
		"o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes in 12 ms, blocked 3 ms",
		"o.a.k.c.NetworkClient [WARN] [Consumer clientId=consumer-seas-2] Connection to node 3 (broker-3/10.0.0.3:9092) could not be established. Broker may not be available.",
		"o.a.s.s.StorageManager [INFO] Restoring store kv-store from changelog, 12 partitions",
	}
	emit := func(thread, line string) {
		t = t.Add(time.Duration(rng.Intn(40)) * time.Millisecond)
		s := fmt.Sprintf("%s [%s] %s\n", t.Format("2006-01-02 15:04:05.000"), thread, line)
		w.WriteString(s)
		n += int64(len(s))
	}
	for n < limit {
		// a rebalance: the checkpoint manager is started again
		clients++
		id := fmt.Sprintf("kafka:samza-consumer-checkpoint-%d", clients)
		emit("main", "KafkaCheckpointManager [INFO] "+fmt.Sprintf("Starting the checkpoint SystemConsumer from oldest offset %d", rng.Intn(5000)))
		emit("main", "KafkaSystemConsumer [INFO] "+fmt.Sprintf("%s: Registering ssp: SystemStreamPartition [kafka, __samza_checkpoint_ver_1_for_seas-cloud-consumer_1, 0] with offset: 0", id))
		emit("main", "KafkaSystemConsumer [INFO] "+id+": Consumer started")
		if clients%120 == 1 {
			emit("main", "KafkaCheckpointManager [INFO] Reading checkpoints for the first time")
			emit("main", "KafkaCheckpointManager [INFO] Stopping system consumer")
			emit("main", "KafkaSystemConsumer [INFO] "+id+": Stopping Samza kafkaConsumer ")
		}
		for i, k := 0, 50+rng.Intn(400); i < k && n < limit; i++ {
			emit(fmt.Sprintf("pool-%d-thread-%d", 1+rng.Intn(4), 1+rng.Intn(8)), noise[rng.Intn(len(noise))])
		}
		emit("main", "KafkaCheckpointManager [INFO] CheckpointManager stopped.")
	}
}
