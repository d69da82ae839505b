package regionserver

import "syscall"

const niceSupported = true

// setThreadNice sets the calling thread's nice value (Linux keeps one per
// thread). An error leaves the thread as it was: the pool still runs, only
// without the OS-level precedence.
func setThreadNice(n int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), n)
}
