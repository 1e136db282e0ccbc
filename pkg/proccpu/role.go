package proccpu

import "strings"

// IsRunner reports whether a cmdline is n8n's task runner: n8n launches
// it as `node … @n8n/task-runner/dist/start.js`. Every other process of
// the container counts as the n8n process.
func IsRunner(argv []string) bool {
	for _, a := range argv {
		if strings.Contains(a, "task-runner") {
			return true
		}
	}
	return false
}
