//go:build unix

package procgroup

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// reset gives a test a fresh, not-exiting table.
func reset(t *testing.T) {
	t.Helper()
	live.Lock()
	live.pids, live.exiting = map[int]struct{}{}, false
	live.Unlock()
}

func sleeper() *exec.Cmd {
	cmd := exec.CommandContext(context.Background(), "sleep", "600")
	Set(cmd)
	return cmd
}

// killedBySignal waits for cmd and fails unless SIGKILL ended it.
func killedBySignal(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("pid %d: want killed, got %v", cmd.Process.Pid, err)
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("pid %d: want SIGKILL, got %v", cmd.Process.Pid, err)
		}
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("pid %d still runs after KillAll", cmd.Process.Pid)
	}
}

func TestKillAllEndsGroupsAndRefusesNewOnes(t *testing.T) {
	reset(t)
	t.Cleanup(func() { reset(t) })
	cmd, err := Start(sleeper)
	if err != nil {
		t.Fatal(err)
	}
	KillAll()
	killedBySignal(t, cmd)
	after, err := Start(sleeper)
	if !errors.Is(err, ErrExiting) {
		if after != nil && after.Process != nil {
			_ = syscall.Kill(-after.Process.Pid, syscall.SIGKILL)
		}
		t.Fatalf("Start after KillAll: want ErrExiting, got %v", err)
	}
	if after != nil && after.Process != nil {
		t.Fatalf("Start after KillAll started pid %d", after.Process.Pid)
	}
}

// A second Ctrl-C can come while a worker is forking its provider: every
// program Start reports started must be one KillAll ends.
func TestKillAllDuringStartsMissesNone(t *testing.T) {
	reset(t)
	t.Cleanup(func() { reset(t) })
	var (
		mu      sync.Mutex
		started []*exec.Cmd
		wg      sync.WaitGroup
	)
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cmd, err := Start(sleeper)
				if err == nil {
					mu.Lock()
					started = append(started, cmd)
					mu.Unlock()
				}
				select {
				case <-stop:
					return
				default:
				}
				if errors.Is(err, ErrExiting) {
					return
				}
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	KillAll()
	// The starters may each finish one more fork before they look.
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	if len(started) == 0 {
		t.Fatal("no program was started")
	}
	for _, cmd := range started {
		killedBySignal(t, cmd)
	}
}
