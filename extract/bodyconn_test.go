package extract

import (
	"bytes"
	"io"
	"net"
	"runtime"
	"testing"
)

// TestBodyConnCopiesWithoutAllocating sends a request body's overflow
// through bodyConn.ReadFrom as net/http does (an io.LimitedReader): every
// byte arrives, and the copies allocate far less than the body's size
// (a *net.TCPConn allocates a buffer as large as the rest of the body on
// every call). Not parallel: it reads the process's allocation counter.
// Under -race only the bytes are checked (see raceDetector).
func TestBodyConnCopiesWithoutAllocating(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const calls, size = 50, 14 << 10
	received := make(chan []byte, 1)
	// The receiving end reads into a buffer made here, before the count
	// starts: io.ReadAll would grow one while the count runs, and its
	// allocations would be charged to ReadFrom.
	sink := make([]byte, calls*size)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			received <- nil
			return
		}
		defer c.Close()
		n, _ := io.ReadFull(c, sink)
		received <- sink[:n]
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	c := bodyConn{raw}
	body := make([]byte, size)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	send := func() {
		n, err := c.ReadFrom(io.LimitReader(bytes.NewReader(body), size))
		if err != nil || n != size {
			t.Fatalf("ReadFrom: %d bytes, %v; want %d", n, err, size)
		}
	}
	send() // the pool's first buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls - 1 {
		send()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / (calls - 1); per > size/8 && !raceDetector {
		t.Errorf("ReadFrom allocated %d bytes per %d-byte body, want at most %d", per, size, size/8)
	}
	got := <-received
	if want := bytes.Repeat(body, calls); !bytes.Equal(got, want) {
		t.Fatalf("the other end read %d bytes, want %d bytes of the body %d times", len(got), len(want), calls)
	}
}
