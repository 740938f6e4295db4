# The two commands a newcomer needs: `make demo` and `make test`.
SWIFT ?= swift
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors
# Release tuning, on the command line rather than in Package.swift (see scripts/release-flags).
RELEASE_FLAGS := $(shell scripts/release-flags)
# Every import must be a declared dependency (SwiftPM would otherwise leak transitive modules).
IMPORT_CHECK = --explicit-target-dependency-import-check error

.PHONY: docs test-python-terminal test-package fuzz test-asan test-chaos demo test test-swift test-python test-js test-browser test-terminal test-harness test-cluster test-docker test-autobahn test-tsan test-conformance lint bench build bootstrap clean

## Run the demo host on http://127.0.0.1:8080 (installs what is missing first).
demo:
	scripts/bootstrap --build-only
	$(SWIFT) run -c release $(RELEASE_FLAGS) modal-host

## Run every test: the Swift suites, the outside-client suites, the Autobahn suite.
test: bootstrap test-swift test-package test-python-terminal test-js test-browser test-conformance test-harness test-cluster test-chaos test-docker test-autobahn

bootstrap:
	scripts/bootstrap

build: bootstrap
	$(SWIFT) build --build-tests $(SWIFT_FLAGS) $(IMPORT_CHECK)

test-swift: build
	$(SWIFT) test $(SWIFT_FLAGS) $(IMPORT_CHECK)
	MEMORY_TESTS=1 $(SWIFT) test $(SWIFT_FLAGS) $(IMPORT_CHECK) --filter MemoryTests

## A dependent package: the README's manifest and Swift blocks against a tagged copy of this tree,
## next to packages that declare Logging, Redis and WebSocket modules.
test-package: bootstrap
	scripts/check-package

## Outside clients (Python websockets) against a real modal-host process.
test-python: build
	.venv/bin/python -m pytest -q Tests/python

## The Python suite and the terminal suite at the same time: both mostly wait (host timers, the
## kiosk's screen), so together they take about as long as the longer one. Each has its log in
## artifacts/logs/ (shown whole when it failed). Not next to Chromium or a build: docs/ci.md.
test-python-terminal: build
	scripts/together python '.venv/bin/python -m pytest -q Tests/python' \
	    terminal '.venv/bin/python -m pytest -q Tests/terminal'

## The browser's protocol client against the golden fixtures and the shared client
## scenarios of Tests/Fixtures/client-scenarios (Node's test runner).
test-js:
	node --test Tests/js/

## The web front end in headless Chromium (Selenium) against a real modal-host.
test-browser: build
	.venv/bin/python -m pytest -q Tests/browser

## The kiosk in a real terminal (tmux) against a real modal-host.
test-terminal: build
	.venv/bin/python -m pytest -q Tests/terminal

## remote-modal-conformance against the Python package, the scripted kiosk and the page in
## Chromium (each passes), and five clients broken on purpose (each fails the scenario of its rule).
test-conformance: build
	.venv/bin/python -m pytest -q Tests/conformance

## Two hosts behind nginx, as local processes: sticky resume, host failure, browser, kiosks.
test-harness: build
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" scripts/harness

## Three hosts joined through one redis-server, as local processes: cross-host group
## approval in the browser, 1,000 racing answers, Redis outage, a host killed.
test-cluster: build
	.venv/bin/python -m pytest -q -s Tests/cluster

## The Dockerfile (hadolint), the compose file (docker-compose config) and the kiosk's systemd unit; no engine here.
test-docker: bootstrap
	.venv/bin/hadolint Dockerfile
	docker-compose -f docker-compose.yml config --quiet
	scripts/check-kiosk-unit

## 200 sessions x 50 modals through a fault-injecting proxy: every answer exactly once.
test-chaos: build
	.venv/bin/python -m pytest -q -s Tests/chaos

## The Autobahn TestSuite (fuzzingclient) against modal-host --echo.
test-autobahn: build
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" scripts/autobahn

## The whole Swift suite under ThreadSanitizer. Only the test bundle is built (no Swift test
## runs an executable; `swift test` alone would also build and link the seven executables).
test-tsan: bootstrap
	$(SWIFT) build --sanitize=thread $(SWIFT_FLAGS) --scratch-path .build/tsan --product remote-modalPackageTests
	$(SWIFT) test --skip-build --sanitize=thread $(SWIFT_FLAGS) --scratch-path .build/tsan

## The whole Swift suite under AddressSanitizer (nightly-style; not in CI for time).
## Leak detection is off: see docs/security.md ("Sanitizers") for the reference cycles it reports.
test-asan: bootstrap
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address $(SWIFT_FLAGS) --scratch-path .build/asan
	$(SWIFT) build --sanitize=address $(SWIFT_FLAGS) --scratch-path .build/asan --product chaos-host
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp CHAOS_CHECK_LEAKS=1 \
	    CHAOS_HOST_BIN=$(CURDIR)/.build/asan/debug/chaos-host CHAOS_HOST_STDERR=$(CURDIR)/artifacts/chaos-asan.log \
	    CHAOS_SESSIONS=50 CHAOS_MODALS=20 .venv/bin/python -m pytest -q -s Tests/chaos

## Fuzz the protocol decoder and the upload reassembly (SECONDS each, default 60).
fuzz:
	scripts/fuzz $${SECONDS:-60}

## The DocC documentation with the toolchain's docc, warnings as errors: one archive per
## module in .build/docs/archives, all of them in .build/docs/remote-modal.doccarchive.
docs:
	scripts/bootstrap --build-only
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" scripts/docs

## swift format in strict lint mode over every Swift file.
lint:
	$(SWIFT) format lint --strict -r Sources Tests Fuzz Package.swift

## Reactive core benchmark (release build).
bench: bootstrap
	$(SWIFT) run -c release $(RELEASE_FLAGS) reactive-bench

clean:
	rm -rf .build artifacts
