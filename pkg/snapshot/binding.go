package snapshot

// Binding is the resource the exporter marks binding
// (n8n_cluster_bottleneck 1), else the one the rebuilt bounds name; ""
// when the scrape has no resource series.
func (s *Snapshot) Binding() string {
	for _, r := range s.Resources {
		if r.Binding {
			return r.Name
		}
	}
	if b, err := s.Bounds(); err == nil {
		return b.Bottleneck()
	}
	return ""
}
