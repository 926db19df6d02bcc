//go:build !race

package schema

// mutationStep spaces the mutated offsets of TestRecordedEquivalent.
const mutationStep = 37
