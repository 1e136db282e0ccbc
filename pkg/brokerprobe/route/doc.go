// Package route parses a broker probe's routes: PROBE_LISTEN (a host:port
// list) and PROBE_UPSTREAM (a URL list), paired by position. The probe
// starts with these rules and pkg/topology reads a probe container's routes
// with them, so both agree on what a probe relays where.
//
// It is a leaf that does no I/O and imports neither fmt nor net (both pull
// in os), so the pure topology model can use it. Errors name the variable
// and the entry's position, never its value.
package route
