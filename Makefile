# n8n-ceiling: `make demo` runs the main job, `make test` runs every test.
SHELL := /bin/bash
GO ?= go
BIN := bin
LAB := e2e/lab
# Packages without the real-n8n e2e, which runs on its own so that load
# measurements do not share the two cores with other tests.
UNIT_PKGS = $$($(GO) list ./... | grep -v '/e2e$$')

.PHONY: results all build test lint lint-deps unit e2e e2e-compat e2e-repeat e2e-kube deps demo down clean dashboards bench-exporter bench-probe bench-loadctl

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# golangci-lint is built from the Go module proxy into the cache, once.
TOOLS := /var/cache/n8n-ceiling/bin
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(TOOLS)/golangci-lint

lint: lint-deps
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt needed: $$bad"; exit 1; fi
	$(GO) vet ./...
	$(GOLANGCI_LINT) run ./...

# lint-deps installs golangci-lint unless the cached one is that version.
lint-deps:
	@$(GOLANGCI_LINT) version 2>/dev/null | grep -q ' $(GOLANGCI_LINT_VERSION:v%=%) ' || \
	  GOBIN=$(TOOLS) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

# deps installs the Debian packages, Node 24 and n8n (cached) and starts the
# lab's dockerd, which the integration tests use too.
deps:
	LAB_N8N_VERSIONS="$(E2E_N8N) $(E2E_N8N_COMPAT)" bash $(LAB)/install.sh
	bash $(LAB)/dockerd.sh >/dev/null

# Tools the tests call (promtool, docker-compose, chromium) must be there:
# N8N_CEILING_REQUIRE_TOOLS turns their skips into failures.
unit: deps
	DOCKER_HOST=$$(bash $(LAB)/dockerd.sh) N8N_CEILING_REQUIRE_TOOLS=1 $(GO) test -count=1 -timeout 20m $(UNIT_PKGS)

# The e2e suites stream as `go test -v` does; testsum then repeats the last
# lines of every failed test at the end of the log.
TESTSUM = set -o pipefail; $(GO) build -o $(BIN)/testsum ./e2e/testsum &&
# The n8n versions the suites run (e2e/lab/env.sh lists those supported):
# the whole suite on E2E_N8N, the newest; its core on E2E_N8N_COMPAT: the
# foundation, the exporter's shape and secret checks, the probe's running
# count, one runner-limit case and the shapes.
E2E_N8N ?= 2.41.1
E2E_N8N_COMPAT ?= 2.23.2
COMPAT_TESTS = TestRunnerLimitSetsThroughput|TestLabShapes|TestExporterTopology|TestExporterKeepsSecrets|TestProbeCountsWhatTheRunnerRuns|TestExperiments
COMPAT_EXPERIMENTS = runner-limit:limit-5 shapes
# TestRunnerLimitSetsThroughput stays out of the full suite: it loads
# runner limits 2 and 4 under worker 15, which the full suite's
# runner-limit experiment loads at 2, 5 and 10 against the exporter's
# ceiling.
COMPAT_ONLY = TestRunnerLimitSetsThroughput
e2e: deps
	$(TESTSUM) LAB_N8N_VERSION=$(E2E_N8N) N8N_CEILING_E2E=1 $(GO) test -json -count=1 -v -timeout 60m \
	  -skip '^($(COMPAT_ONLY))$$' ./e2e/ | $(BIN)/testsum

e2e-compat: deps
	$(TESTSUM) LAB_N8N_VERSION=$(E2E_N8N_COMPAT) E2E_EXPERIMENTS='$(COMPAT_EXPERIMENTS)' N8N_CEILING_E2E=1 \
	  $(GO) test -json -count=1 -v -timeout 30m -run '^($(COMPAT_TESTS))$$' ./e2e/ | $(BIN)/testsum

# e2e-kube builds the kube lab (cached: a warm run only verifies) and runs
# its suite: one cold up.sh, the tests, one down.sh.
e2e-kube:
	bash e2e/kube/build.sh
	$(TESTSUM) N8N_CEILING_E2E=1 $(GO) test -json -count=1 -v -timeout 40m ./e2e/kube/ | $(BIN)/testsum

# e2e-repeat runs the timing-sensitive e2e tests N times on one lab and
# sets each check's figure side by side (e2e/repeat): every run, the lowest
# and highest, and how many runs passed. Each run's log, experiment results
# and figures stay in out/repeat/<n>/.
N ?= 3
REPEAT_TESTS ?= TestRunnerLimitSetsThroughput|TestProbeCountsWhatTheRunnerRuns|TestRunnerCeilingFollowsTheWorkload|TestSweepAndDashboards|TestExperiments|TestTaskRequestWait|TestOtherWorkOnTheHost
e2e-repeat: deps
	rm -rf out/repeat; rc=0; for i in $$(seq $(N)); do \
	  mkdir -p out/repeat/$$i; echo "e2e-repeat: run $$i of $(N)"; \
	  E2E_RESULTS=$(CURDIR)/out/repeat/$$i LAB_N8N_VERSION=$(E2E_N8N) LAB_KEEP=1 N8N_CEILING_E2E=1 $(GO) test -count=1 -v -timeout 90m \
	    -run '$(REPEAT_TESTS)' ./e2e/ >out/repeat/$$i/log 2>&1 || { rc=1; echo "e2e-repeat: run $$i failed (out/repeat/$$i/log)"; }; \
	done; \
	$(GO) run ./e2e/repeat/cmd out/repeat/* || rc=1; bash $(LAB)/down.sh >/dev/null; exit $$rc

# test runs every suite even when one failed, and fails if any did.
test: lint unit
	rc=0; $(MAKE) e2e || rc=1; $(MAKE) e2e-compat || rc=1; $(MAKE) e2e-kube || rc=1; exit $$rc

demo: build deps
	bash scripts/demo.sh

# results re-runs the shipped experiments on the lab and rewrites
# docs/results/ (JSON, HTML and SUMMARY.md), then KEDA's side-by-side on the
# kube lab (keda.json, keda.html); no figure there is typed by hand.
EXPERIMENTS := $(basename $(notdir $(wildcard e2e/experiments/*.yaml)))
results: build deps
	mkdir -p docs/results
	rc=0; for n in $(EXPERIMENTS); do \
	  LAB_PROBE=1 $(BIN)/loadctl experiment --spec e2e/experiments/$$n.yaml --quiet --record-body \
	    --out docs/results/$$n.json --report docs/results/$$n.html || rc=$$?; \
	done; \
	$(BIN)/loadctl experiment --markdown docs/results/SUMMARY.md $(EXPERIMENTS:%=docs/results/%.json) || rc=$$?; \
	bash e2e/kube/build.sh && E2E_RESULTS=$(CURDIR)/docs/results N8N_CEILING_E2E=1 $(GO) test -count=1 -v -timeout 40m \
	  -run '^TestKEDAScalesOnSaturationNotQueueLength$$' ./e2e/kube/ || rc=$$?; exit $$rc

# dashboards regenerates the dashboard JSON and refreshes the Helm chart's
# copies of it and of the rules (a test fails when they drift).
dashboards:
	$(GO) run ./dashboards/gen
	$(GO) test -count=1 ./deploy/helm -run 'TestCopies|TestGolden' -update

bench-exporter: deps
	DOCKER_HOST=$$(bash $(LAB)/dockerd.sh) bash bench/exporter/run.sh

bench-probe:
	$(GO) test -run '^$$' -bench Relay -benchtime 3s ./pkg/brokerprobe/

bench-loadctl: deps
	bash bench/loadctl/run.sh

down:
	bash $(LAB)/down.sh

clean:
	rm -rf $(BIN)
