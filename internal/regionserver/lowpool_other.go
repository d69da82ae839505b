//go:build !linux

package regionserver

const niceSupported = false

func setThreadNice(int) {}
