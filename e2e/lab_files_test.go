package e2e

import (
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// TestLabSecretFilesPrivate: once the lab is up, its secrets file and the
// env files it hands to containers are readable by root alone (up.sh
// writes them under umask 077 and checks the same). Every shape writes the
// same files, so it takes the shape TestLabShapes ends with, and restarts
// nothing.
func TestLabSecretFilesPrivate(t *testing.T) {
	upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "7", "LAB_RUNNER_LIMITS": "4"})
	if err := lab.CheckPrivate(labState()); err != nil {
		t.Error(err)
	}
}
