// Package peers reads where a container's processes are connected to: the
// remote ends of the established TCP connections in its network
// namespace's socket tables (/proc/<pid>/net/tcp and tcp6, through
// procfs). Pairing takes a broker's IP and port among them as the broker a
// runner really dialled, whatever name it dialled by.
package peers
