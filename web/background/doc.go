// Package background owns the web server's work that outlives a request:
//
//   - heap dump analyses (HeapDumps), run as jobs of the job system (package
//     jobs, on River): queued fair by uploader and bounded per uploader, each
//     report's analysis one job whose progress, queue position and retries
//     the report's page shows, resumed by another replica or the next start
//     when its process stops or dies, tried again with back-off when it fails
//     for the server's reasons (a store error, the memory budget held by other
//     analyses), and failed for good when the dump is at fault;
//   - the retention of old reports (Config.Retain), every hour;
//   - the sweep of the lab's runs whose replica stopped renewing them
//     (Config.RunLease), every half lease, after the lab's heartbeat.
//
// The web Server builds one Background in NewServer over the process's job
// runner, starts it (Start: the runner, the loops) and stops it in Close
// (Stop: the running analyses are cancelled and go back to their queue for
// the next start or another replica). What an analysis does is the web's
// (Config.Analyze); this package runs it, records its outcome in the store
// and tells where it stands (HeapDumps.State). Queues and FailedJobs read the
// job queues and the jobs failed for good for /readyz and the operations page.
package background
