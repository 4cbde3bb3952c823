package kind

// MaxAnalysisBudget bounds what one analysis may hold however large the
// server's budget: four times the default -max-decompressed, what a profile of
// many samples needs, and less than the 11 GB that 400 KB of gzip can ask for.
const MaxAnalysisBudget = 4 << 30
