//go:build race

package rules

// raceOn lets the heaviest tests shrink under the race detector, which
// slows regular-expression matching about tenfold.
const raceOn = true
