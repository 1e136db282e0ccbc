package brokerprobe

import "context"

// Shutdown sends 1001 Going Away to both sides of every relayed connection,
// and to any connection relayed from now on, then waits for the relays to
// end. If ctx ends first it cuts the sockets still open, waits for their
// relays to finish and returns ctx's error. The caller stops serving
// Handler first.
func (p *Probe) Shutdown(ctx context.Context) error {
	sessions := p.startClosing()
	p.log.Info("probe shutting down", "connections", len(sessions))
	for _, s := range sessions {
		go s.goAway()
	}
	ended := make(chan struct{})
	go func() { p.relays.Wait(); close(ended) }()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
	}
	for _, s := range p.sessions() {
		s.cut()
	}
	<-ended
	return ctx.Err()
}

// startClosing makes track refuse new sessions and returns the live ones.
func (p *Probe) startClosing() []*session {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	return p.sessions()
}

func (p *Probe) sessions() []*session {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*session, 0, len(p.conns))
	for s := range p.conns {
		out = append(out, s)
	}
	return out
}
