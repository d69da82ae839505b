// Package cpumeter measures process CPU time for benchmarks. On a shared,
// noisy machine the CPU a benchmark's process spends per operation is
// steadier than wall time, and with -cpu N it counts what contention costs
// every goroutine.
package cpumeter

import (
	"syscall"
	"testing"
	"time"
)

// Process returns the process's user+system CPU time (every thread, GC
// included).
func Process() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Start starts measuring; the returned func reports the process CPU time
// since, per operation, as "cpu-ns/op". Start it right before the timed
// loop and call the result right after.
func Start(b *testing.B) (stop func()) {
	start := Process()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(Process()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// Parallel runs op b.N times over b.RunParallel's goroutines (as many as
// -cpu says), each counting its own calls from 1, and reports allocations
// and cpu-ns/op.
func Parallel(b *testing.B, op func(i int)) {
	b.ReportAllocs()
	b.ResetTimer()
	defer Start(b)()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			op(i)
		}
	})
}
