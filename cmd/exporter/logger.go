package main

import (
	"io"
	"log/slog"

	"github.com/prometheus/common/promslog"
)

// newLogger logs to w at the configured level and format. promslog puts
// the caller's file:line under "source"; the collector's own attribute
// for a data source is "data_source".
func (c Config) newLogger(w io.Writer) *slog.Logger {
	return promslog.New(&promslog.Config{Level: c.logLevel, Format: c.logFormat, Writer: w})
}
