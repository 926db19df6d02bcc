//go:build race

package extract

// raceDetector: under -race sync.Pool drops a quarter of what is put back
// on purpose, so pooled buffers are allocated again.
const raceDetector = true
