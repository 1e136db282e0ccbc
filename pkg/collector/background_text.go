package collector

import "fmt"

// backgroundLine says how much of the host other work took over the
// demand window and what that leaves n8n, or why it is not measured
// apart; "" without the host's CPU.
func backgroundLine(r *Report) string {
	c := r.CPU
	if c == nil || c.Cores == 0 {
		return ""
	}
	if c.Host.Unknown != "" {
		return "the host's CPU counts all its busy time as n8n's (other work is not measured apart: " + c.Host.Unknown + ")"
	}
	line := fmt.Sprintf("other work took %.2f of the host's %d cores over the demand window (CPU outside n8n's containers and the host's PostgreSQL and Redis); cpu:host counts the %.2f left",
		c.Host.Background, c.Cores, coresLeft(c.Cores, c.Host.Background))
	switch {
	case c.Backing != "":
		line += "; PostgreSQL and Redis were not read (" + c.Backing + "), so their CPU counts as other work"
	case len(c.Host.Backing) == 0:
		line += "; no PostgreSQL or Redis process shows in EXPORTER_PROC_ROOT (on another host, or the exporter is not in the host's PID namespace)"
	}
	return line
}
