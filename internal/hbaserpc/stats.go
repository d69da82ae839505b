package hbaserpc

// Stats is a point-in-time view of a server's load, for metrics and the
// web UI.
type Stats struct {
	// Conns is the number of open connections.
	Conns int
	// Accepted counts the connections accepted since the server started.
	Accepted uint64
	// Serving is the number of calls handed to their handler that have not
	// returned (quota waits included: a call held by the quota gate is
	// inside the handler).
	Serving int64
	// Outstanding is Serving plus WriteQueue: calls read and not yet
	// answered on the wire (a response being written is not counted).
	Outstanding int64
	// WriteQueue is the number of responses encoded and queued on their
	// connection but not yet written to its socket (several complete at
	// once, or the client reads slowly).
	WriteQueue int
}

// Stats returns the server's current load. It takes the server's
// connection lock briefly and reads each connection's write queue length; it never waits for a
// call.
func (s *Server) Stats() Stats {
	st := Stats{Accepted: s.accepted.Load(), Serving: s.serving.Load()}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Conns = len(s.mu.conns)
	for c := range s.mu.conns {
		st.WriteQueue += c.w.queued()
	}
	st.Outstanding = st.Serving + int64(st.WriteQueue)
	return st
}
