# Weir's make targets. `make` alone prints them.
GO        ?= go
PKGS      ?= ./...
BIN       := bin
STATICCHECK_VERSION := v0.8.2
# Race detection and the invariants build tag are on for every test run.
TESTFLAGS ?= -race -tags invariants -timeout 20m
FUZZTIME  ?= 10s

.PHONY: help
help: ## print the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  make %-10s %s\n", $$1, $$2}'

.PHONY: setup
setup: ## fetch every Go module and Maven artifact the build and tests need
	$(GO) mod download
	mvn -q -f tests/javaclient/pom.xml test-compile
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || $(MAKE) --no-print-directory chromium

.PHONY: chromium
chromium: ## install headless Chromium for test-ui (Debian package chromium; root or passwordless sudo)
	@if ! command -v apt-get >/dev/null 2>&1; then echo "setup: no apt-get: install Chromium by hand, test-ui skips without it"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else echo "setup: cannot install chromium (not root, no passwordless sudo): test-ui skips"; exit 0; fi; \
	$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium \
	  || echo "setup: installing chromium failed: test-ui skips"

.PHONY: build
build: ## build bin/weir
	$(GO) build -o $(BIN)/weir ./cmd/weir

.PHONY: test
test: test-go test-ui test-java ## every test: Go (race, invariants), the web UI in Chromium and the Java client conformance suite

.PHONY: test-go
test-go: ## Go unit and integration tests with -race and invariants
	$(GO) test $(TESTFLAGS) $(PKGS)

.PHONY: test-ui
test-ui: build ## the web UI of a real bin/weir standalone in headless Chromium; screenshots in tests/artifacts/
	WEIR_BINARY=$(CURDIR)/$(BIN)/weir $(GO) test -tags browser -count=1 -timeout 5m -v -run . ./tests/browser/

.PHONY: test-short
test-short: ## quick tests without the race detector
	$(GO) test -short $(PKGS)

.PHONY: test-sweep
test-sweep: ## quota exactness sweep: limits 1-100% of capacity, gets/puts/scans, 1 and 64 threads (~5 min; WEIR_QUOTA_SWEEP_SECONDS=N per level)
	WEIR_QUOTA_SWEEP=1 $(GO) test -count=1 -timeout 30m -run 'TestQuotaSweepFull' -v ./internal/cluster/

.PHONY: test-java
test-java: build ## HBase 2.6.4 Java client conformance tests against bin/weir (needs Java 17 + Maven)
	rm -rf tests/javaclient/target/surefire-reports
	mvn -q -f tests/javaclient/pom.xml test -Dweir.binary=$(CURDIR)/$(BIN)/weir || { tests/javaclient/summary.sh; exit 1; }
	tests/javaclient/summary.sh

.PHONY: bench
bench: ## benchmarks (storage and region); BENCH=regexp to narrow
	$(GO) test -run '^$$' -bench '$(or $(BENCH),.)' -benchmem $(PKGS)

.PHONY: fuzz
fuzz: ## every fuzz target for FUZZTIME (default 10s) each
	@set -e; out=$$(mktemp); trap 'rm -f $$out' EXIT; \
	for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; \
	    before=$$(ls $$dir/testdata/fuzz/$$f 2>/dev/null | wc -l); \
	    if $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg >$$out 2>&1; then tail -n 3 $$out; continue; fi; \
	    cat $$out; \
	    after=$$(ls $$dir/testdata/fuzz/$$f 2>/dev/null | wc -l); \
	    if [ "$$after" -gt "$$before" ] || ! grep -q '^    context deadline exceeded$$' $$out; then exit 1; fi; \
	    echo "fuzz: $$f stopped with Go 1.26's fuzztime race (go.dev/issue/75804), no failing input; going on"; \
	  done; done

.PHONY: lint
lint: $(BIN)/staticcheck ## go vet and staticcheck
	$(GO) vet $(PKGS)
	$(GO) vet -tags browser ./tests/browser/
	$(BIN)/staticcheck $(PKGS)
	$(BIN)/staticcheck -tags browser ./tests/browser/

$(BIN)/staticcheck:
	GOBIN=$(CURDIR)/$(BIN) GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

.PHONY: proto
proto: ## regenerate internal/hbasepb/*.pb.go (needs protoc)
	./internal/hbasepb/gen.sh

.PHONY: clean
clean: ## remove build outputs
	rm -rf $(BIN)
