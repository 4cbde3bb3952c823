// Package checkpoint models Apache Samza 1.8 (apache/samza at 23f52e98, 1.9.0-SNAPSHOT,
// whose KafkaCheckpointManager, KafkaSystemConsumer, KafkaConsumerProxy and
// StreamProcessor are unchanged since release-1.8.0-rc0) to reproduce SAMZA-2785 in Go:
// Samza's KafkaCheckpointManager starts a checkpoint SystemConsumer on every start()
// but, once its checkpoint map is filled, never stops it again, so a manager that is
// started and stopped once per rebalance (standalone mode) leaks one running consumer
// per rebalance. The fixed variants follow the fix proposed with the report,
// apache/samza#1674 (commit c808091, not merged upstream), and the two other changes
// discussed on the report.
//
// The model stays close to Samza's code paths and log lines:
//
//   - [SystemConsumer] is KafkaSystemConsumer: Register then Start launches a poll loop
//     (KafkaConsumerProxy's poll thread) that moves messages from a kafka-go Reader
//     into a bounded buffer (BlockingEnvelopeMap); Poll takes from the buffer; Stop ends
//     the loop, wakes up a fetch in flight and closes the reader.
//   - [CheckpointManager] is KafkaCheckpointManager: Start, ReadLastCheckpoint,
//     WriteCheckpoint and Stop, with stopConsumerAfterFirstRead (active containers) and a
//     checkpoint map that is never reset, in the leaky variant and three fixed ones.
//   - The manager's admin and producer (KafkaSystemAdmin, KafkaSystemProducer) each
//     hold one connection to the checkpoint partition's leader between start and
//     stop, and stop closes it, leaving nothing on the heap: upstream's stop()
//     closes the admin's metadata KafkaConsumer and AdminClient
//     (KafkaSystemAdmin.java:190-202) and the producer (KafkaSystemProducer.scala:56-63),
//     and a closed Java client is garbage with its metadata. (On kafka-go
//     Transports they did not: a closed Transport's pool, with its cluster metadata,
//     stays reachable from its connection's idle timer for 30 s, about 5 kB a
//     rebalance in a storm, which no Java client keeps. pr1674 adds one flag to
//     the manager and keeps nothing per start(); with it a storm's live heap holds
//     steady.)
//   - [Workload] runs the standalone-rebalance loop against a real Kafka protocol broker:
//     an embedded franz-go kfake broker ([StartBroker]) or any cluster. In the storm,
//     the next rebalance interrupts most containers in their first read, where upstream
//     fails them; each failed container stops its StreamProcessor, which the
//     application restarts (counted). The storm's cycles and read fraction are inputs;
//     the consumers left open, the failed containers and the restarts are results.
//   - [Log] writes Samza's log4j layout, so the log of a run can be counted like a
//     production log: upstream's lines under upstream's loggers, with upstream's client
//     id ([ClientID], one per job) and poll thread names, and the model's own lines
//     under its own logger ([LoggerModel]).
//
// The package does not import the web, store or analyze packages.
package checkpoint
