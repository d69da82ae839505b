package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile profiles this process's CPU into path until the returned
// stop is called. `weir bench` uses it to see where the driver's own CPU
// goes: on a small host it shares the cores with the server it measures.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("-cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
