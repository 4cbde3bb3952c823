package view

// Banner is the verdict every report and run page opens with, under its title:
// the state, the one-sentence reason and the key numbers.
type Banner struct {
	// State is the machine-readable verdict ("leak", "steady", "inconclusive",
	// "no-leak", "running"…).
	State string
	// Class colours the banner: "bad", "warn", "good" or "" (neutral).
	Class string
	// Badges name the state as it reads ("leak suspected"); a run has its status
	// and its verdict.
	Badges []Badge
	Reason string
	// ReasonTestID is the reason's data-testid ("verdict-reason" when empty).
	ReasonTestID string
	// Numbers are the key figures, label and value.
	Numbers []Pair
	// Notes explain what a reader might otherwise find contradictory (a run's
	// leak verdict beside a heap series without steady growth).
	Notes []string
}

// Badge is a coloured word with its data-testid.
type Badge struct {
	Label, Class, TestID string
}

func (b Banner) reasonTestID() string {
	if b.ReasonTestID == "" {
		return "verdict-reason"
	}
	return b.ReasonTestID
}
