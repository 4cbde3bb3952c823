// Package alert delivers the verdict changes of watches to the receivers the
// operator declared: a Prometheus Alertmanager (its API v2, an alert
// LeakSuspected{watch, suspect} firing while the verdict is "leak" and
// resolved when it leaves it), a Slack-format incoming webhook, and a
// generic JSON webhook (Payload).
//
// It owns the receivers' declarations (ParseReceiver, Receivers as the
// repeatable -alert flag: KIND=URL[,name=NAME][,timeout=DURATION], the URL
// from the environment or a file with env:VAR and file:PATH), the payloads,
// and the delivery: Deliverer.Notify stores one delivery per receiver and
// change in the store (store.Delivery) and inserts one job for it on the
// jobs runner (queue Queue). Each job POSTs the payload within the
// receiver's timeout, reads at most 4 KiB of the answer, follows redirects
// on the receiver's own host only, and records the attempt: a 2xx is
// delivered; a 5xx, a 408, a 429 or no answer is tried again with back-off
// (Config.Backoff) up to Config.Attempts, not sooner than a 429's or 503's
// Retry-After; any other answer fails it at once. A periodic sweep queues
// again the deliveries a dead process left pending or retrying
// (Config.Sweep).
// A periodic job sends the alerts that still fire to each Alertmanager again
// (Config.Refresh), since Alertmanager resolves an alert nobody repeats.
// A receiver's URL never leaves the process's configuration: the records,
// errors and logs name the receiver and show its redacted URL.
//
// Incidents records the alerts in the incidents: a leak opens an incident
// for its watch or joins the one its last leak opened while it is open; the
// resolution annotates it.
package alert
