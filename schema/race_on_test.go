//go:build race

package schema

// mutationStep spaces the mutated offsets of TestRecordedEquivalent: the
// race detector slows each validation about tenfold, so under -race (CI's
// test command) every 211th offset is changed, still every kind of
// mutation on every answer.
const mutationStep = 211
