// Package recovery models Apache Kafka 0.10.0.0's broker log recovery (apache/kafka at
// tag 0.10.0.0), to reproduce KAFKA-3933: recovery over real on-disk segments, with the
// leaky deep iterator of 0.10.0.0 and each later fix (0.10.0.1's, at tag 0.10.0.1, and
// Kafka 2.0's, at tag 2.0.0), on the data it leaked on.
//
// WriteLog writes a log directory as a broker has it: a folder per partition
// ("<topic>-<n>"), segments named by their 20-digit base offset, their offset
// indexes, and the recovery-point-offset-checkpoint. Segments hold message format
// v0 or v1 (Kafka 0.10's message sets: a compressed batch is one wrapper message
// whose value is the compressed inner message set, CRC-32) or record batches v2
// (encoded by kafka-go's protocol.RecordSet, CRC-32C). Recover does what a broker
// does after an unclean shutdown: for every segment from the recovery point on,
// read entry by entry, check size, magic and checksum, rebuild the offset index,
// truncate at the first invalid or incomplete entry and delete the later
// segments, logging in Kafka's log4j layout: Kafka 0.10.0.0's own lines, word for
// word under the loggers of the classes that write them, and the deep iterators
// it opens and closes, which Kafka does not log, under the model's own logger,
// leakui.recovery.model.
//
// As in LogSegment.recover, the index gets an entry where more than
// index.interval.bytes were read since the last one, and only there does the
// variant look for the entry's offset: VariantLeaky (0.10.0.0) opens a deep
// iterator and takes its first inner offset, lazily and never closing it over a
// v0 wrapper, eagerly and closing it at the end over a v1 wrapper; VariantClose
// closes it; VariantDrain (0.10.0.1) reads every wrapper to its end and closes
// it; VariantHeader (Kafka 2.0 on) takes the entry's last offset from its header
// and decompresses nothing. Corrupt damages a payload behind a valid checksum,
// which only the variants that read it to its end see.
//
// What an unclosed iterator holds depends on the codec, and nothing is kept
// alive on purpose:
//
//   - gzip is a model of the JVM's native zlib memory, calibrated against a JVM
//     (GzipLeak.java, RunJVMReference). The iterator's inflate state (8 KiB) and
//     window (32 KiB) live in an anonymous mapping outside the Go heap, as a
//     GZIPInputStream's live in malloc'd native memory outside the Java heap;
//     their pages become resident as they are written, about three for an
//     iterator that read one message. Close gives the block back; an unclosed
//     iterator's block is given back only by a runtime.AddCleanup after the
//     garbage collector finds the iterator unreachable, as only a finalizer frees
//     an unclosed GZIPInputStream, and a given-back block stays resident for
//     reuse, as glibc keeps freed chunks. With little heap garbage the collector
//     seldom runs, so RSS climbs while the heap stays small. ReadOffheap reports
//     the blocks, OffheapResident their resident bytes.
//   - zstd (record batches v2 only) is a Go library behaviour, not Kafka's: it
//     goes through klauspost/compress/zstd NewReader with its default
//     concurrency, min(GOMAXPROCS, 4). Its stream decoder runs three goroutines
//     that end at Close or at the end of the stream. When a batch holds at least
//     that many zstd blocks (128 KiB each), an iterator that read one record and
//     was never closed leaves the three goroutines blocked for good, with the
//     decoder's history buffers (about 9 MiB for kafka-go's 8 MiB window). Smaller
//     batches are decoded to their end and leak nothing; GOMAXPROCS=1 never leaks.
//   - DecodersKafkaGo reads every codec with kafka-go's own pooled codecs (zstd
//     with concurrency 1): an unclosed iterator leaks no goroutine and holds
//     nothing after a collection; it only forgoes the pool, so every batch
//     allocates a fresh decoder. For lz4 that is two 4 MiB block buffers per batch.
//   - snappy and lz4 always use kafka-go's codecs: no goroutines, nothing
//     retained; the cost of not closing is garbage, as above.
package recovery
