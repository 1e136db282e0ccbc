// Package keda holds the test of the KEDA ScaledObject example
// (scaledobject.yaml): it decodes strictly into the fields of KEDA's
// ScaledObject CRD schema, its queries name metrics the exporter (or n8n
// main) serves, and promtool parses them when it is installed.
package keda
