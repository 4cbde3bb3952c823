// Package recovery is the KAFKA-3933 model: Kafka broker log recovery over real
// on-disk segments of record batches v2, with the leaky deep iterator of Kafka
// 0.10.0.0 and each later fix.
//
// WriteLog writes a log directory as a broker has it: a folder per partition
// ("<topic>-<n>"), segments named by their 20-digit base offset holding batches
// encoded by kafka-go's protocol.RecordSet, their offset indexes, and the
// recovery-point-offset-checkpoint. Recover does what a broker does after an
// unclean shutdown: for every segment from the recovery point on, read batch by
// batch, check size, magic and CRC-32C, rebuild the offset index, truncate at the
// first invalid or incomplete batch and delete the later segments, logging in
// Kafka's log4j layout.
//
// The first offset of each compressed batch comes from a Variant: VariantLeaky
// opens a decompressing DeepIterator, reads one record and drops the iterator
// unclosed; VariantClose closes it; VariantDrain reads the batch to its end, then
// closes it; VariantHeader reads the batch header only. Kafka 0.10.0.0 opened the
// deep iterator only where an index entry was due (every index.interval.bytes);
// this model opens one for every compressed batch, which is the same thing once
// batches are larger than the index interval.
//
// What an unclosed iterator holds depends on the codec, and nothing is kept
// alive on purpose:
//
//   - gzip is a model of the JVM's native zlib memory. The iterator's inflate
//     window (32 KiB) and state (8 KiB) live in an anonymous mapping outside the
//     Go heap, as a GZIPInputStream's live in malloc'd native memory outside the
//     Java heap. Close unmaps it; an unclosed iterator's mapping is unmapped only
//     by a runtime.AddCleanup after the garbage collector finds the iterator
//     unreachable, as only a finalizer frees an unclosed GZIPInputStream. With
//     little heap garbage the collector seldom runs, so RSS climbs while the heap
//     stays small. ReadOffheap reports the mapped bytes.
//   - zstd goes through klauspost/compress/zstd NewReader with its default
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
