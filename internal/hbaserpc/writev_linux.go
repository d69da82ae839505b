package hbaserpc

import (
	"syscall"
	"unsafe"
)

// canWritev: this platform writes a frame's parts with one writev.
const canWritev = true

// writev writes the unwritten bytes of parts (skipping the first skip
// bytes) with one writev syscall on the non-blocking fd.
func writev(fd uintptr, parts *[3][]byte, skip int) (int, error) {
	var iov [3]syscall.Iovec
	k := 0
	for _, p := range parts {
		if skip >= len(p) {
			skip -= len(p)
			continue
		}
		p = p[skip:]
		skip = 0
		iov[k].Base = &p[0]
		iov[k].SetLen(len(p))
		k++
	}
	if k == 0 {
		return 0, nil
	}
	n, _, errno := syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(k))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
