package hbaserpc

// Stats is a point-in-time view of a server's load, for metrics and the
// web UI.
type Stats struct {
	// Conns is the number of open connections.
	Conns int
	// Accepted counts the connections accepted since the server started.
	Accepted uint64
	// Serving is the number of calls inside their handler now (quota waits
	// included: a call held by the quota gate is inside the handler).
	Serving int64
	// Outstanding is the number of calls read but not yet answered on the
	// wire: being served, or their responses waiting for the writer.
	Outstanding int
	// WriteQueue is the number of responses waiting for their connection's
	// writer.
	WriteQueue int
}

// Stats returns the server's current load. It takes the server's
// connection lock briefly and reads channel lengths; it never waits for a
// call.
func (s *Server) Stats() Stats {
	st := Stats{Accepted: s.accepted.Load(), Serving: s.serving.Load()}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Conns = len(s.mu.conns)
	for c := range s.mu.conns {
		// The reader holds one slot while it waits for the next frame.
		st.Outstanding += max(len(c.slots)-1, 0)
		st.WriteQueue += len(c.out)
	}
	return st
}
