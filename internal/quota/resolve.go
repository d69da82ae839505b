package quota

import (
	"encoding/binary"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
)

// resolved is what a request of one (user, namespace, table) meets: its
// limiters by HBase's precedence (limitersFor) and its user's scheduling
// class. It is immutable; a settings change makes new ones.
type resolved struct {
	lims   [maxLimiters]*subjectLimiter
	tenant *tenant
	weight int // ≥ 1
	n      int8
	// soft is set when lims[n-1] is the region-server limiter after
	// another one: soft limits may apply (soft.go).
	soft     bool
	priority Priority
	// own is the user's tenant when this entry was the first to need it:
	// a request then reads its tenant from the entry's own cache line.
	own tenant
}

// tenant is a user's state shared by all its (namespace, table) entries.
// Each user has one canonical tenant at a time (Checker.tenants); a tenant
// nobody is queued on may be dropped, and is then marked dead.
type tenant struct {
	// queued counts the user's requests in the Admitter's lane (waiting
	// or at its head), plus tenantDead once dropped. While it is 0 a
	// request may be admitted without taking the lane: nobody of the same
	// tenant is ahead of it. A request that takes the lane counts itself
	// on the canonical tenant (enqueueTenant), which is therefore never
	// dropped while anyone waits; a dead tenant, still held by an older
	// resolved entry, never reads 0, so its holders take the lane too.
	queued atomic.Int32
}

// tenantDead marks a dropped tenant.
const tenantDead = 1 << 30

// maxIdleTenants is how many tenants are kept before idle ones are
// dropped when a resolve cache starts over.
const maxIdleTenants = 1024

// A resolve cache's key is (user, namespace, table) in one string: each
// part's length as a uvarint, then its bytes (unambiguous whatever bytes
// the names hold). One string hashes and compares in one pass, and a map
// keyed by string takes Go's fast string path, where a struct of three
// strings costs three hashes and three comparisons through the generic
// path. A request builds its key on the stack (resolveKey): looking a
// []byte up as string(k) does not allocate.
func appendResolveKey(b []byte, user, namespace, table string) []byte {
	for _, s := range [...]string{user, namespace, table} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// resolveKeyBuf is the stack buffer a request's key is built in.
type resolveKeyBuf [128]byte

// resolveKey builds the key of (user, namespace, table) in buf, or on the
// heap when it does not fit (names of over 124 bytes in all, or one of
// 128 bytes or more): appendResolveKey written out for the common case.
func resolveKey(buf *resolveKeyBuf, user, namespace, table string) []byte {
	if len(user)+len(namespace)+len(table) > len(buf)-3 || (len(user)|len(namespace)|len(table)) >= 0x80 {
		return appendResolveKey(nil, user, namespace, table)
	}
	buf[0] = byte(len(user))
	i := 1 + copy(buf[1:], user)
	buf[i] = byte(len(namespace))
	i += 1 + copy(buf[i+1:], namespace)
	buf[i] = byte(len(table))
	i += 1 + copy(buf[i+1:], table)
	return buf[:i]
}

// maxResolved bounds a resolve cache: past it the cache starts over (a
// server that sees more distinct (user, table) pairs than this between two
// settings changes pays the full lookup again, and keeps its memory
// bounded).
const maxResolved = 1 << 16

// resolveCache maps (user, namespace, table) to its resolved entry. Reads
// are one load of an immutable map, without a lock; misses resolve under
// mu into dirty, which becomes the read map once the misses since its copy
// reach a quarter of its size (so each entry is copied O(1) times on
// average: sync.Map's original scheme, with a string key). The zero value
// is empty and ready.
type resolveCache struct {
	read atomic.Pointer[map[string]*resolved]

	mu struct {
		sync.Mutex
		// dirty is nil or read's entries plus the newer ones.
		dirty  map[string]*resolved
		misses int
	}
}

func (rc *resolveCache) load(k []byte) *resolved {
	if m := rc.read.Load(); m != nil {
		return (*m)[string(k)]
	}
	return nil
}

// resolve returns the entry for req, resolving it on a miss.
func (c *Checker) resolve(st *checkerState, now int64, req *Request) *resolved {
	var buf resolveKeyBuf
	k := resolveKey(&buf, req.User, req.Namespace, req.Table)
	if r := st.resolved.load(k); r != nil {
		return r
	}
	return c.resolveSlow(st, now, k, req)
}

func (c *Checker) resolveSlow(st *checkerState, now int64, k []byte, req *Request) *resolved {
	rc := &st.resolved
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r := rc.mu.dirty[string(k)]; r != nil {
		rc.missedLocked()
		return r
	}
	if r := rc.load(k); r != nil {
		return r
	}
	if rc.mu.dirty == nil {
		if m := rc.read.Load(); m != nil && len(*m) < maxResolved {
			rc.mu.dirty = maps.Clone(*m)
		} else {
			// Empty, or full: start over. Before the tenant is looked
			// up below, so that this entry never holds a dropped one.
			rc.mu.dirty = make(map[string]*resolved)
			c.dropIdleTenants()
		}
	}
	r := &resolved{}
	r.tenant = c.tenantOf(req.User, &r.own)
	r.n = int8(c.limitersFor(st, now, req, &r.lims))
	r.soft = r.n > 1 && r.lims[r.n-1] == st.rs
	r.priority, r.weight = PriorityMedium, 1
	if e := st.users[req.User]; e != nil {
		r.priority, r.weight = e.priority, max(e.weight, 1)
	}
	// string(k) copies the key: the cache keeps no caller's buffer alive.
	rc.mu.dirty[string(k)] = r
	rc.missedLocked()
	return r
}

// missedLocked counts a miss and publishes dirty when they add up.
func (rc *resolveCache) missedLocked() {
	rc.mu.misses++
	if rc.mu.misses*4 < len(rc.mu.dirty) {
		return
	}
	m := rc.mu.dirty
	rc.read.Store(&m)
	rc.mu.dirty, rc.mu.misses = nil, 0
}

// tenantOf returns user's canonical tenant, making fresh it if there is
// none.
func (c *Checker) tenantOf(user string, fresh *tenant) *tenant {
	c.tenants.Lock()
	defer c.tenants.Unlock()
	return c.tenantOfLocked(user, fresh)
}

func (c *Checker) tenantOfLocked(user string, fresh *tenant) *tenant {
	t := c.tenants.m[user]
	if t == nil {
		t = fresh
		c.tenants.m[strings.Clone(user)] = t
	}
	return t
}

// enqueueTenant counts a request of user entering the Admitter's lane on
// its canonical tenant, which it returns (dequeue with queued.Add(-1)).
func (c *Checker) enqueueTenant(user string) *tenant {
	c.tenants.Lock()
	defer c.tenants.Unlock()
	t := c.tenantOfLocked(user, &tenant{})
	t.queued.Add(1)
	return t
}

// dropIdleTenants forgets the tenants nobody is queued on, once there are
// many, when a resolve cache starts over, so that users seen once do not
// accumulate.
func (c *Checker) dropIdleTenants() {
	c.tenants.Lock()
	defer c.tenants.Unlock()
	if len(c.tenants.m) <= maxIdleTenants {
		return
	}
	for u, t := range c.tenants.m {
		if t.queued.CompareAndSwap(0, tenantDead) {
			delete(c.tenants.m, u)
		}
	}
}
