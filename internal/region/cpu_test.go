package region

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the process's user+system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter starts measuring process CPU time (all threads: GC and Pebble's
// background work included); the returned func reports it per operation as
// "cpu-ns/op". On a shared, noisy machine it is steadier than wall time.
// Start it right before the timed loop, stop it right after.
func cpuMeter(b *testing.B) (stop func()) {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
