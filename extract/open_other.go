//go:build !unix

package extract

// openNonblock is not needed where opening a file cannot block on a FIFO.
const openNonblock = 0
