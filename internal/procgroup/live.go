package procgroup

import (
	"os/exec"
	"sync"
)

// live holds the process groups started by Start and not yet waited for, so
// that a process exiting at once (a second Ctrl-C) can end them: they run
// in groups of their own, which the terminal's signal does not reach, and
// would otherwise outlive invx (a model server, a `sleep` in a script).
var live = struct {
	sync.Mutex
	pids map[int]struct{}
}{pids: map[int]struct{}{}}

func track(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	live.Lock()
	live.pids[cmd.Process.Pid] = struct{}{}
	live.Unlock()
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

// KillAll kills every process group started by Start and not yet Done. It
// is for a process about to exit without waiting for its children.
func KillAll() {
	live.Lock()
	defer live.Unlock()
	for pid := range live.pids {
		killGroup(pid)
	}
}
