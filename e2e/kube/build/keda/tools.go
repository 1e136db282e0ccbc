//go:build tools

// Package tools pins the KEDA commands that build.sh compiles.
package tools

import (
	_ "github.com/kedacore/keda/v2/cmd/adapter"
	_ "github.com/kedacore/keda/v2/cmd/operator"
)
