package procgroup

import (
	"errors"
	"os/exec"
	"sync"
)

// ErrExiting is Start's answer once KillAll ran: the process is on its way
// out and a program started now would outlive it.
var ErrExiting = errors.New("invx is exiting: no new child program is started")

// live holds the process groups started by Start and not yet waited for, so
// that a process exiting at once (a second Ctrl-C) can end them: they run
// in groups of their own, which the terminal's signal does not reach, and
// would otherwise outlive invx (a model server, a `sleep` in a script).
//
// Start forks under the same lock that KillAll holds, so a group is either
// tracked before KillAll looks or never started: a fork in flight when the
// second signal came used to be missed, and its program outlived invx.
// Forks are serialised by the runtime (syscall.ForkLock) anyway, so the
// lock costs no parallelism.
var live = struct {
	sync.Mutex
	pids    map[int]struct{}
	exiting bool
}{pids: map[int]struct{}{}}

// startTracked starts cmd and records its group, unless KillAll ran.
func startTracked(cmd *exec.Cmd) error {
	live.Lock()
	defer live.Unlock()
	if live.exiting {
		return ErrExiting
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	live.pids[cmd.Process.Pid] = struct{}{}
	return nil
}

// Done forgets cmd's group once cmd was waited for: its id may be reused
// after that, so KillAll must no longer signal it.
func Done(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	live.Lock()
	delete(live.pids, cmd.Process.Pid)
	live.Unlock()
}

// KillAll kills every process group started by Start and not yet Done, and
// makes every later Start fail with ErrExiting. It is for a process about
// to exit without waiting for its children.
func KillAll() {
	live.Lock()
	defer live.Unlock()
	live.exiting = true
	for pid := range live.pids {
		killGroup(pid)
	}
}
