package capacity

// Seidmann is Seidmann's approximation of multi-server stations (Seidmann,
// Schweitzer & Shalev-Oren 1987): a station of m > 1 servers and demand D
// becomes one server of demand D/m plus a delay of D(m−1)/m. It returns the
// single-server stations and the summed delay. The ceiling m/D and the
// latency of one execution alone stay the same; in between, the single
// server queues users that m servers would not, so the throughput comes
// out low near the knee (by at most the bound asserted in the tests).
// Exact(Network{Stations: single, Think: Z + delay}, N) is the
// approximation of a disjoint network; Overlapping with the same latency
// that of an overlapping one.
func Seidmann(stations []Station) (single []Station, delay float64) {
	single = make([]Station, len(stations))
	for k, s := range stations {
		s = s.normal()
		if s.Servers > 1 {
			delay += s.Demand * (s.Servers - 1) / s.Servers
			s = Station{Name: s.Name, Servers: 1, Demand: s.Demand / s.Servers}
		}
		single[k] = s
	}
	return single, delay
}
