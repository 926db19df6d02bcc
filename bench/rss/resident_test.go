package main

import (
	"os"
	"testing"
)

func TestReadResident(t *testing.T) {
	t.Parallel()
	anon, file, ok := readResident("testdata/status")
	if !ok || anon != 45123 || file != 39877 {
		t.Fatalf("readResident = %v, %v, %v; want 45123, 39877, true", anon, file, ok)
	}
	if _, _, ok := readResident("testdata/missing"); ok {
		t.Fatal("a missing status file read as ok")
	}
	// This process's own: anonymous memory is never zero while it runs.
	if _, err := os.Stat("/proc/self/status"); err == nil {
		if anon, _, ok := readResident("/proc/self/status"); !ok || anon <= 0 {
			t.Fatalf("own status: anon %v ok %v", anon, ok)
		}
	}
}
