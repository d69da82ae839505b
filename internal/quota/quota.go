package quota

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// Kind is what a request does, which decides the throttle types it counts
// against.
type Kind int8

const (
	// KindRead is a get (or a batch of gets).
	KindRead Kind = iota
	// KindWrite is a put or delete (or a batch of them).
	KindWrite
	// KindAtomic is checkAndMutate, increment or append: it counts as a read
	// and a write, and against the ATOMIC_* types (HBASE-28349, HBASE-29229).
	KindAtomic
	// KindScan is one scan call (a next() of up to many rows); a read.
	KindScan
)

func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	case KindAtomic:
		return "atomic"
	case KindScan:
		return "scan"
	}
	return fmt.Sprintf("Kind(%d)", int8(k))
}

// Request describes one RPC for a quota check.
type Request struct {
	// User is the (quota) user; Namespace and Table name the table (Table is
	// the qualifier; an empty Namespace means "default").
	User, Namespace, Table string
	Kind                   Kind
	// Reqs is the number of operations in the call (a multi of 10 gets is
	// 10). 0 means 1.
	Reqs int64
	// EstBytes is the estimated size: bytes to write, or to read for reads
	// and scans (for atomic operations, both). Grant.Charge corrects it.
	EstBytes int64
}

// amounts is the cost of a request per throttle type, indexed by type
// (16 entries: an index masked with 15 needs no bounds check).
type amounts [16]int64

const (
	bitsRequest = 1<<RequestNumber | 1<<RequestSize | 1<<RequestCapacityUnit | 1<<RequestHandlerUsageMs
	bitsWrite   = 1<<WriteNumber | 1<<WriteSize | 1<<WriteCapacityUnit
	bitsRead    = 1<<ReadNumber | 1<<ReadSize | 1<<ReadCapacityUnit
	bitsAtomic  = 1<<AtomicRequestNumber | 1<<AtomicReadSize | 1<<AtomicWriteSize
	// bitsBytes are the types whose cost depends on the bytes (what Charge
	// corrects).
	bitsBytes = 1<<RequestSize | 1<<RequestCapacityUnit | 1<<WriteSize | 1<<WriteCapacityUnit |
		1<<ReadSize | 1<<ReadCapacityUnit | 1<<AtomicReadSize | 1<<AtomicWriteSize
)

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// cuDivisor divides byte counts into capacity units, rounding up, by a
// shift when the unit is a power of two (1024 by default): a 64-bit
// division costs tens of cycles, a request needs up to four.
type cuDivisor struct {
	unit  int64
	shift int8 // -1: unit is not a power of two
}

func newCUDivisor(unit int64) cuDivisor {
	d := cuDivisor{unit: unit, shift: -1}
	if unit > 0 && unit&(unit-1) == 0 {
		d.shift = int8(bits.TrailingZeros64(uint64(unit)))
	}
	return d
}

// units returns ceil(b / unit), 0 for b ≤ 0.
func (d cuDivisor) units(b int64) int64 {
	if b <= 0 {
		return 0
	}
	if d.shift >= 0 {
		return int64((uint64(b) + uint64(d.unit) - 1) >> uint(d.shift))
	}
	return ceilDiv(b, d.unit)
}

// cost computes a request's amounts as HBase's DefaultOperationQuota and
// TimeBasedLimiter do: request types count reads + writes, CU =
// ceil(bytes / unit). The handler-time estimate is 0: it is charged after
// the fact (ChargeHandlerTime), so a tenant in handler debt waits.
func (c *Checker) cost(kind Kind, reqs, bytes int64, a *amounts) uint16 {
	if reqs <= 0 {
		reqs = 1
	}
	var nr, nw int64
	mask := uint16(bitsRequest)
	switch kind {
	case KindWrite:
		nw = reqs
	case KindAtomic:
		nr, nw = reqs, reqs
		mask |= bitsAtomic
	default:
		nr = reqs
	}
	if nw > 0 {
		mask |= bitsWrite
	}
	if nr > 0 {
		mask |= bitsRead
	}
	a[RequestNumber], a[WriteNumber], a[ReadNumber], a[AtomicRequestNumber] = nr+nw, nw, nr, nr+nw
	a[RequestHandlerUsageMs] = 0
	c.byteCost(kind, bytes, a)
	return mask
}

// byteCost sets the amounts of the types whose cost depends on the bytes
// (bitsBytes): reads and writes of kind moving bytes.
func (c *Checker) byteCost(kind Kind, bytes int64, a *amounts) { c.byteDelta(kind, 0, bytes, a) }

// byteDelta sets the amounts of the bytes types to what moving to bytes
// instead of from costs (negative: a refund).
func (c *Checker) byteDelta(kind Kind, from, to int64, a *amounts) {
	var rb, wb, rcu, wcu int64
	db := to - from
	if kind != KindWrite { // reads, scans, atomic: read bytes
		rb, rcu = db, c.rcu.units(to)-c.rcu.units(from)
	}
	if kind == KindWrite || kind == KindAtomic {
		wb, wcu = db, c.wcu.units(to)-c.wcu.units(from)
	}
	a[RequestSize], a[RequestCapacityUnit] = rb+wb, rcu+wcu
	a[WriteSize], a[WriteCapacityUnit] = wb, wcu
	a[ReadSize], a[ReadCapacityUnit] = rb, rcu
	a[AtomicReadSize], a[AtomicWriteSize] = rb, wb
}

// subjectLimiter holds the rate limiters of one subject (HBase's
// TimeBasedLimiter: one per throttle type).
type subjectLimiter struct {
	// tok is the token state, first so that a check's fields share the
	// object's first cache lines. It is guarded by the owning Checker's
	// tokMu, not by a lock of its own: a request locks once for all the
	// limiters it meets, so that it is charged to all of them or to none
	// atomically (see Checker.tokMu).
	tok struct {
		// set has bit t set when type t is limited.
		set uint16
		// admitted counts the requests this limiter admitted.
		admitted uint64
		// rl holds the limited types' limiters densely, in type order:
		// type t's is rl[rank(t)] (rlOf), so a limiter of one or two types
		// fits in two cache lines.
		rl [numThrottleTypes]RateLimiter
		// tq[t] is type t's throttle as set; factor[t] scales it to this
		// server's limit (its share of a CLUSTER or per-host limit). Only
		// updates and usage snapshots read them.
		tq     [numThrottleTypes + 1]TimedQuota
		factor [numThrottleTypes + 1]float64
	}
	// use is the usage accounting kept outside the lock (usage.go).
	use limiterUse

	subject   Subject
	isDefault bool // the default user quota of subject.User
}

// rank is the index in rl of type t's limiter, given the set of limited
// types: the number of limited types below t.
func rank(set uint16, t ThrottleType) int {
	return bits.OnesCount16(set & (1<<t - 1))
}

// rlOf returns limited type t's limiter. The caller holds tokMu.
func (l *subjectLimiter) rlOf(t ThrottleType) *RateLimiter {
	return &l.tok.rl[rank(l.tok.set, t)]
}

// setLimitsLocked installs the throttles, keeping the balances of types
// that stay limited (RateLimiter.Update). The caller holds the Checker's
// tokMu, or is the only one to know l.
func (l *subjectLimiter) setLimitsLocked(now int64, ths map[ThrottleType]TimedQuota, factor func(ThrottleType, Scope) float64) {
	var set uint16
	for t := range ths {
		set |= 1 << t
	}
	var rl [numThrottleTypes]RateLimiter
	for t, tq := range ths {
		f := factor(t, tq.Scope)
		limit := float64(tq.Limit.Amount) * f
		r := &rl[rank(set, t)]
		if l.tok.set&(1<<t) != 0 {
			*r = *l.rlOf(t)
			r.updateNs(now, limit, tq.Limit.Per)
		} else {
			*r = NewRateLimiter(limit, tq.Limit.Per)
		}
		l.tok.tq[t], l.tok.factor[t] = tq, f
	}
	l.tok.set, l.tok.rl = set, rl
}

// checkLocked reports whether the request's amounts may be taken from every
// limited type it counts against, taking nothing. If not, it reports the
// type with the longest wait (the binding one; HBase reports the first
// exceeded in its check order, which for a retry hint is the less useful
// choice) and that wait. The caller holds tokMu.
//
// It walks the limited types in rank order, so that each one's bucket is
// found by counting rather than by a popcount per type, and asks each only
// whether it admits (RateLimiter.admitsNs); the wait is computed for
// refusals alone.
func (l *subjectLimiter) checkLocked(now int64, a *amounts, mask uint16) (ThrottleType, time.Duration) {
	var worstT ThrottleType
	var worst time.Duration
	set := l.tok.set
	if set&mask == 0 {
		return 0, 0
	}
	rl := l.tok.rl[:]
	i := 0
	for b := set; b != 0 && i < len(rl); b &= b - 1 {
		t := ThrottleType(bits.TrailingZeros16(b))
		r := &rl[i]
		i++
		if mask&(1<<t) == 0 {
			continue
		}
		r.refillNs(now)
		if n := a[t&15]; r.avail >= float64(n) || r.admitsNear(n) { // admitsNs, inlined
			continue
		}
		if w := r.waitFor(r.need(a[t])); worstT == 0 || w > worst {
			worstT, worst = t, w
		}
	}
	return worstT, worst
}

// adjustLocked takes a[t] from each limited type in mask (a negative
// amount gives tokens back). The caller holds tokMu.
func (l *subjectLimiter) adjustLocked(a *amounts, mask uint16) {
	set := l.tok.set
	if set&mask == 0 {
		return
	}
	rl := l.tok.rl[:]
	i := 0
	for b := set; b != 0 && i < len(rl); b &= b - 1 {
		t := ThrottleType(bits.TrailingZeros16(b))
		r := &rl[i]
		i++
		if mask&(1<<t) != 0 {
			r.adjust(float64(a[t&15]))
		}
	}
}

type tableKey struct{ ns, table string }

// userEntry is everything set for one user.
type userEntry struct {
	global     *subjectLimiter
	tables     map[tableKey]*subjectLimiter
	namespaces map[string]*subjectLimiter
	bypass     bool
	priority   Priority
	weight     int
}

// checkerState is an immutable snapshot of the lookup tables; limiters are
// shared between snapshots so their balances survive Update.
type checkerState struct {
	settings   Settings
	users      map[string]*userEntry
	tables     map[tableKey]*subjectLimiter
	namespaces map[string]*subjectLimiter
	rs         *subjectLimiter
	all        map[Subject]*subjectLimiter
	// resolved caches limitersFor per (user, namespace, table): a request
	// makes one lookup (resolve.go). It belongs to this snapshot, so an
	// Update starts an empty one.
	resolved resolveCache
}

// Checker enforces Settings on requests. It is safe for concurrent use: the
// lookup tables are an immutable snapshot swapped atomically by Update, a
// request finds its limiters with one lookup in the snapshot's cache, and
// the token state of all limiters is guarded by one mutex, taken once per
// check and once per charge. Check does not allocate once a (user, table)
// has been seen.
type Checker struct {
	cfg          Config
	rcu, wcu     cuDivisor // cfg.ReadCapacityUnit, cfg.WriteCapacityUnit
	base         time.Time // the limiters' clock reads now.Sub(base) + 1
	defaultQuota map[ThrottleType]TimedQuota

	// tokMu guards every subjectLimiter.tok of this Checker. One lock for
	// all limiters makes a request's charge all-or-nothing atomically
	// (HBase: a request that fails one limiter consumes from none, and no
	// other request sees tokens that a refused one took for a moment), and
	// costs a request one lock instead of one per limiter. It is held for
	// tens of nanoseconds: a server would need tens of millions of calls a
	// second to make it the bottleneck, and with a REGIONSERVER quota every
	// call meets the same limiter anyway.
	tokMu sync.Mutex

	state atomic.Pointer[checkerState]
	// split, once SetSplit is called, scales shared limits (share.go).
	split atomic.Pointer[Split]

	updateMu sync.Mutex  // serializes Update
	exceed   atomic.Bool // soft limits (soft.go)

	defaults struct {
		sync.RWMutex
		// m holds the default-quota limiters of users without settings,
		// created on their first request. Entries are dropped when the user
		// gets settings; otherwise they are kept (HBase evicts idle ones).
		m map[string]*subjectLimiter
	}
	// tenants holds each user's tenant (resolve.go), kept across Updates.
	tenants struct {
		sync.Mutex
		m map[string]*tenant
	}
}

// NewChecker builds a Checker enforcing st; now starts the limiters' clocks.
func NewChecker(cfg Config, st Settings, now time.Time) (*Checker, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Checker{cfg: cfg, base: now, rcu: newCUDivisor(cfg.ReadCapacityUnit), wcu: newCUDivisor(cfg.WriteCapacityUnit)}
	if len(cfg.DefaultUserThrottles) > 0 {
		c.defaultQuota = make(map[ThrottleType]TimedQuota, len(cfg.DefaultUserThrottles))
		for t, l := range cfg.DefaultUserThrottles {
			c.defaultQuota[t] = TimedQuota{Limit: l}
		}
	}
	c.defaults.m = make(map[string]*subjectLimiter)
	c.tenants.m = make(map[string]*tenant)
	if err := c.Update(st, now); err != nil {
		return nil, err
	}
	return c, nil
}

// Settings returns the settings being enforced.
func (c *Checker) Settings() Settings { return c.state.Load().settings }

// Update switches to st. Limiters of subjects that keep a throttle keep
// their balance (RateLimiter.Update); new ones start full. On error nothing
// changes.
func (c *Checker) Update(st Settings, now time.Time) error {
	if err := st.Validate(); err != nil {
		return err
	}
	c.updateMu.Lock()
	defer c.updateMu.Unlock()
	old := c.state.Load()
	ns := &checkerState{
		settings:   st,
		users:      make(map[string]*userEntry),
		tables:     make(map[tableKey]*subjectLimiter),
		namespaces: make(map[string]*subjectLimiter),
		all:        make(map[Subject]*subjectLimiter, st.Len()),
	}
	user := func(u string) *userEntry {
		e := ns.users[u]
		if e == nil {
			e = &userEntry{}
			ns.users[u] = e
		}
		return e
	}
	for s, q := range st.m {
		if s.Kind() == SubjectUser {
			e := user(s.User)
			e.bypass, e.priority, e.weight = q.BypassGlobals, q.Priority, q.Weight
		}
		if len(q.Throttles) == 0 {
			if s.User != "" {
				user(s.User) // a user with any setting gets no default quota
			}
			continue
		}
		var l *subjectLimiter
		if old != nil {
			l = old.all[s]
		}
		if l == nil {
			l = &subjectLimiter{subject: s}
			l.setLimitsLocked(c.clock(now), q.Throttles, c.factorFor(s)) // not shared yet
		} else {
			c.tokMu.Lock()
			l.setLimitsLocked(c.clock(now), q.Throttles, c.factorFor(s))
			c.tokMu.Unlock()
		}
		ns.all[s] = l
		switch s.Kind() {
		case SubjectUser:
			user(s.User).global = l
		case SubjectUserTable:
			e := user(s.User)
			if e.tables == nil {
				e.tables = make(map[tableKey]*subjectLimiter)
			}
			e.tables[tableKey{s.Namespace, s.Table}] = l
		case SubjectUserNamespace:
			e := user(s.User)
			if e.namespaces == nil {
				e.namespaces = make(map[string]*subjectLimiter)
			}
			e.namespaces[s.Namespace] = l
		case SubjectTable:
			ns.tables[tableKey{s.Namespace, s.Table}] = l
		case SubjectNamespace:
			ns.namespaces[s.Namespace] = l
		case SubjectRegionServer:
			ns.rs = l
		}
	}
	c.defaults.Lock()
	for u := range c.defaults.m {
		if ns.users[u] != nil {
			delete(c.defaults.m, u)
		}
	}
	c.defaults.Unlock()
	c.state.Store(ns)
	return nil
}

// factorFor returns how a limit of subject s is scaled on this server (see
// factor).
func (c *Checker) factorFor(s Subject) func(ThrottleType, Scope) float64 {
	sp := c.split.Load()
	return func(t ThrottleType, sc Scope) float64 { return c.factor(sp, s, t, sc) }
}

// factor is the fraction of subject s's type-t limit this server enforces:
// by the Split when one is set (a master-assigned share, the static CLUSTER
// split, the per-host MACHINE split); else 1 for MACHINE scope and HBase's
// static split for CLUSTER scope.
func (c *Checker) factor(sp *Split, s Subject, t ThrottleType, sc Scope) float64 {
	if sp != nil {
		return sp.factor(s, t, sc)
	}
	if sc != ScopeCluster {
		return 1
	}
	if k := s.Kind(); (k == SubjectTable || k == SubjectUserTable) && c.cfg.TableShare != nil {
		return c.cfg.TableShare(s.Namespace, s.Table)
	}
	return 1 / float64(c.cfg.NumServers)
}

// clock reads now on the limiters' monotonic clock (never 0, which means
// "not started").
func (c *Checker) clock(now time.Time) int64 { return int64(now.Sub(c.base)) + 1 }

// clockNow is clock(time.Now()) at half the cost: it reads only the
// monotonic clock (time.Now reads the wall clock too, and each reading
// costs about 50 ns on the development VM).
func (c *Checker) clockNow() int64 { return int64(time.Since(c.base)) + 1 }

// defaultLimiter returns user's default-quota limiter, creating it.
func (c *Checker) defaultLimiter(user string, now int64) *subjectLimiter {
	c.defaults.RLock()
	l := c.defaults.m[user]
	c.defaults.RUnlock()
	if l != nil {
		return l
	}
	c.defaults.Lock()
	defer c.defaults.Unlock()
	if l = c.defaults.m[user]; l == nil {
		l = &subjectLimiter{subject: UserSubject(user), isDefault: true}
		l.setLimitsLocked(now, c.defaultQuota, func(ThrottleType, Scope) float64 { return 1 }) // not shared yet
		c.defaults.m[user] = l
	}
	return l
}

// maxLimiters is the most limiters one request meets: user, table,
// namespace, region server.
const maxLimiters = 4

// limitersFor applies HBase's precedence (RegionServerRpcQuotaManager,
// UserQuotaState.getTableLimiter): one user limiter, the first set among
// user+table, user+namespace and user (or the default user quota when the
// user has no settings at all); then, unless the user has GLOBAL_BYPASS, the
// table, namespace and region-server limiters.
func (c *Checker) limitersFor(st *checkerState, now int64, req *Request, out *[maxLimiters]*subjectLimiter) int {
	ns := req.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	tk := tableKey{ns, req.Table}
	n := 0
	e := st.users[req.User]
	var ul *subjectLimiter
	if e != nil {
		if e.tables != nil {
			ul = e.tables[tk]
		}
		if ul == nil && e.namespaces != nil {
			ul = e.namespaces[ns]
		}
		if ul == nil {
			ul = e.global
		}
	} else if c.defaultQuota != nil {
		ul = c.defaultLimiter(req.User, now)
	}
	if ul != nil {
		out[n] = ul
		n++
	}
	if e != nil && e.bypass {
		return n
	}
	if l := st.tables[tk]; l != nil {
		out[n] = l
		n++
	}
	if l := st.namespaces[ns]; l != nil {
		out[n] = l
		n++
	}
	if st.rs != nil {
		out[n] = st.rs
		n++
	}
	return n
}

// Check takes req's estimated cost from every applicable limiter, or from
// none: if one limiter refuses, nothing is taken and the error is a
// *ThrottledError with the first refusing limiter's binding type and the
// time until its tokens are due. On success the Grant corrects the estimate
// after the fact. Check does not allocate on success once req's user and
// table have been seen.
func (c *Checker) Check(now time.Time, req Request) (Grant, error) {
	st, ns := c.state.Load(), c.clock(now)
	return c.check(c.resolve(st, ns, &req), ns, &req)
}

// check is Check with the limiters resolved; ns is the clock reading.
func (c *Checker) check(r *resolved, ns int64, req *Request) (Grant, error) {
	n := int(r.n)
	if n == 0 {
		return Grant{res: r}, nil
	}
	var a amounts
	mask := c.cost(req.Kind, req.Reqs, req.EstBytes, &a)
	c.tokMu.Lock()
	// Soft limits: the region-server limiter alone decides (soft.go).
	if r.soft && c.exceed.Load() {
		if err := c.checkSoftLocked(r, ns, &a, mask); err != nil {
			c.tokMu.Unlock()
			return Grant{}, err
		}
	} else {
		for _, l := range r.lims[:n] {
			if t, wait := l.checkLocked(ns, &a, mask); t != 0 {
				c.tokMu.Unlock()
				return Grant{}, &ThrottledError{Type: t, Wait: wait, lim: l}
			}
		}
		for _, l := range r.lims[:n] {
			l.adjustLocked(&a, mask)
			l.tok.admitted++
		}
	}
	c.tokMu.Unlock()
	return Grant{c: c, res: r, mask: mask, kind: req.Kind, bytes: req.EstBytes}, nil
}

// Tenant returns the user's scheduling class and weight (weight ≥ 1).
func (c *Checker) Tenant(user string) (Priority, int) {
	e := c.state.Load().users[user]
	if e == nil {
		return PriorityMedium, 1
	}
	return e.priority, max(e.weight, 1)
}

// Grant is an admitted request's claim on its limiters. Its methods are not
// safe for concurrent use on the same Grant. The zero Grant (no limiter
// applied) does nothing.
type Grant struct {
	c     *Checker // nil: no limiter was charged
	res   *resolved
	mask  uint16
	kind  Kind
	bytes int64 // bytes charged so far
}

// Tenant returns the request's user's scheduling class and weight (weight
// ≥ 1) as they were when it was admitted: what Checker.Tenant returns,
// without another lookup.
func (g *Grant) Tenant() (Priority, int) {
	if g.res == nil {
		return PriorityMedium, 1
	}
	return g.res.priority, g.res.weight
}

// Charge replaces the estimated bytes with the actual ones: the difference
// is taken from (or given back to) every limiter that was charged, for the
// size and CU types. Limiters may go into debt, which later refills repay:
// a 100-row scan that estimated one block pays for all it read, and the
// tenant's next requests wait longer. It may be called again with a newer
// total.
func (g *Grant) Charge(actualBytes int64) {
	if g.c == nil || actualBytes == g.bytes {
		return
	}
	var d amounts
	g.c.byteDelta(g.kind, g.bytes, actualBytes, &d)
	g.c.tokMu.Lock()
	for _, l := range g.res.lims[:g.res.n] {
		l.adjustLocked(&d, g.mask&bitsBytes)
	}
	g.c.tokMu.Unlock()
	g.bytes = actualBytes
}

// ChargeHandlerTime charges the handler time the request used against
// REQUEST_HANDLER_USAGE_MS (rounded up to whole milliseconds).
func (g *Grant) ChargeHandlerTime(d time.Duration) {
	if g.c == nil || d <= 0 {
		return
	}
	var a amounts
	a[RequestHandlerUsageMs] = ceilMillis(d)
	g.c.tokMu.Lock()
	for _, l := range g.res.lims[:g.res.n] {
		l.adjustLocked(&a, 1<<RequestHandlerUsageMs)
	}
	g.c.tokMu.Unlock()
}

// describe lists the limiters that apply to req, for tests and debugging.
func (c *Checker) describe(now time.Time, req Request) []string {
	var lims [maxLimiters]*subjectLimiter
	n := c.limitersFor(c.state.Load(), c.clock(now), &req, &lims)
	out := make([]string, n)
	for i, l := range lims[:n] {
		out[i] = l.subject.String()
		if l.isDefault {
			out[i] = "default quota of " + out[i]
		}
	}
	return out
}
