package storage

import "time"

// EventListener receives the engine's typed events. Nil fields are ignored.
// Callbacks run on Pebble's goroutines: they must be quick and must not call
// back into the Engine.
type EventListener struct {
	FlushEnd        func(FlushInfo)
	CompactionEnd   func(CompactionInfo)
	WriteStallBegin func(reason string)
	WriteStallEnd   func()
	DiskSlow        func(path string, d time.Duration)
	BackgroundError func(error)
	Corruption      func(path string, err error)
}

// FlushInfo describes a finished memtable flush.
type FlushInfo struct {
	Duration time.Duration
	Bytes    uint64
	Err      error
}

// CompactionInfo describes a finished compaction.
type CompactionInfo struct {
	Duration    time.Duration
	OutputLevel int
	OutputBytes uint64
	Err         error
}
