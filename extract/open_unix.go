//go:build unix

package extract

import "syscall"

// openNonblock keeps the open of a FIFO or device from waiting for the other
// end; on a regular file it changes nothing.
const openNonblock = syscall.O_NONBLOCK
