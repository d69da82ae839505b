package regionserver

import (
	"syscall"
	"unsafe"
)

const niceSupported = true

// schedIdle is Linux's SCHED_IDLE scheduling policy.
const schedIdle = 5

// setThreadNice sets the calling thread's nice value (Linux keeps one per
// thread) and puts it in the SCHED_IDLE policy. A nice-19 thread that has
// just been given the CPU keeps it against a waking nice-0 thread until it
// has run its time slice (EEVDF's run-to-parity protection: up to a few
// milliseconds), and that was when a HIGH call's server thread or its
// client woke; the kernel preempts a SCHED_IDLE thread at once for any
// thread of another policy that wakes. An error leaves the thread as it
// was: the pool still runs, only without the OS-level precedence.
func setThreadNice(n int) {
	tid := syscall.Gettid()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, n)
	var param struct{ priority int32 } // struct sched_param; must be 0 for SCHED_IDLE
	_, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param)))
}
