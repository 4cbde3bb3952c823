package view

// GoroutineReport is the page of a report over goroutine dumps: one dump's groups,
// or what changed between two.
type GoroutineReport struct {
	// Verdict opens the page under its title.
	Verdict   *Banner
	ID        string
	Title     string
	Label     string
	Created   string
	Permalink string
	Files     []FileInfo
	// Links are the JSON twin and the Markdown summary.
	Links []Link
	// Modes switch between each dump alone and the comparison of the first and
	// the last, over the same files.
	Modes  []Link
	Groups GoroutineGroups
}

// GoroutineGroups is the grouped view of one dump, or of a comparison: totals, the
// crash the dump starts with, and the groups, largest (or most grown) first. The
// goroutine groups view of a goroutine profile report shows it too.
type GoroutineGroups struct {
	// Total is the number of goroutines (of the target, in a comparison).
	Total int
	// Format is the dump's format, such as "debug=1" or "panic".
	Format string
	// Declared is the total the dump states about itself, or -1.
	Declared int
	// Truncated reports a dump cut short.
	Truncated bool
	// IgnoredLines counts the lines that belong to no goroutine.
	IgnoredLines int
	// Panic is the crash the dump starts with; nil for a live program's dump.
	Panic *GoroutinePanic
	// Base describes the base of a comparison; nil for one dump.
	Base *GoroutineBase
	// Groups are the groups shown; Count of All, ShowAll links to the rest.
	Groups     []GoroutineGroupRow
	Count, All int
	ShowAll    string
	// Notices are warnings, such as a filter that matched nothing.
	Notices []string
	// Verdict and Headline are the analysis's (goroutines.Report): its verdict
	// ("crash", "leak", "grew", "compared", "dump") and the sentence that says it.
	Verdict, Headline string
	// ProvenLeaked reports the Go runtime's goroutineleak profile: every goroutine
	// shown is proven leaked. Leaked counts the goroutines proven leaked (also in a
	// debug=2 dump whose states say "(leaked)").
	ProvenLeaked bool
	Leaked       int
	// LeakHint says how to get the runtime's proof; empty when the dump has it.
	LeakHint string
	// CreatorNote says how the creating goroutine takes part in grouping, and
	// SplitURL switches between grouping with and without it; both empty for
	// dumps that do not name creators.
	CreatorNote, SplitURL string
}

// GoroutinePanic is the panic or fatal error a dump starts with.
type GoroutinePanic struct {
	// Kind is "panic", "fatal error" or "signal".
	Kind string
	// Message is the crash message, possibly of several lines (nested panics).
	Message string
	Signal  string
	// Goroutine is the id of the goroutine that panicked, or -1.
	Goroutine int64
}

// GoroutineBase describes the base dump of a comparison.
type GoroutineBase struct {
	BaseName, TargetName string
	BaseTotal            int
	// Change is target − base, signed ("+5", "-2", "0").
	Change string
	Grew   bool
	// NewOrGrew counts the groups that are new or grew; Gone those only the base has.
	NewOrGrew, Gone int
}

// GoroutineGroupRow is one group of goroutines with the same stack and state.
type GoroutineGroupRow struct {
	Rank  int
	Count int
	// Title is the group's most telling function: the first frame of the
	// program's own code, else the first frame outside the runtime.
	Title  string
	State  string
	Wait   string
	Locked bool
	Labels []Pair
	Frames []GoroutineFrameRow
	// CreatedBy is the `go` statement that started the goroutines; nil when the
	// dump does not say. Creators names the goroutines that ran it.
	CreatedBy *GoroutineFrameRow
	Creators  string
	// IDs are the goroutine ids, space-separated; IDCount how many there are (0
	// for formats without ids).
	IDs       string
	IDCount   int
	Panicking bool
	// Change is set in a comparison.
	Change *GoroutineChangeRow
}

// GoroutineFrameRow is one call of a stack.
type GoroutineFrameRow struct {
	Func, Location string
	// Elided marks the runtime's "additional frames elided" marker.
	Elided bool
}

// GoroutineChangeRow tells how a group changed since the base.
type GoroutineChangeRow struct {
	Base      int
	Delta     int
	New, Gone bool
	// Text is "new", "+3 from 2", "-1 from 4", "gone (4 in base)" or "unchanged".
	Text string
}
