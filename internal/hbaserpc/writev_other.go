//go:build !linux

package hbaserpc

import "errors"

// canWritev: elsewhere a frame's tail is copied into the pending buffer.
const canWritev = false

func writev(uintptr, *[3][]byte, int) (int, error) {
	return 0, errors.ErrUnsupported
}
