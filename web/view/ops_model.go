package view

// OpsView is the operations page (/ops): the job system's queues, the jobs
// running and those that failed, the watches' last scrapes, the memory
// budget and the throttles, as one replica reads them now.
type OpsView struct {
	// At is when the page was read.
	At string
	// Budget is the memory budget's use: used and limit in words, and the
	// bytes for the meter.
	BudgetUsed, BudgetLimit    string
	BudgetBytes, BudgetOfBytes int64
	BudgetPercent              string
	// Jobs tells a server with a job system; QueuesError and FailedError
	// say why a part could not be read.
	Jobs                     bool
	Queues                   []OpsQueue
	QueuesError, FailedError string
	Running, Failed          []OpsJob
	// Watches tells a server that runs watches; WatchesError why they could
	// not be read.
	Watches      bool
	WatchList    []OpsWatch
	WatchesError string
	Throttles    []OpsThrottle
}

// OpsQueue is one job queue across the replicas: its jobs waiting
// (available), running, waiting to be tried again, failed for good in the
// last hour; Workers run here at once.
type OpsQueue struct {
	Name                                           string
	Workers, Available, Running, Retryable, Failed int
	OldestWait                                     string
}

// OpsJob is a job running or failed: Link is the page of what it works on
// (a report, a watch), "" for none.
type OpsJob struct {
	ID, Kind, Queue, Attempts, When, Process, Progress, Error string
	Link, LinkLabel                                           string
}

// OpsWatch is a watch's last scrape (or push).
type OpsWatch struct {
	Name, URL, Verdict, VerdictClass, Action, Last, Took, Error, Stale string
}

// OpsThrottle is a request class's throttle now.
type OpsThrottle struct {
	Name                 string
	Busy, Limit, Waiting int
}
