# The two commands: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-long soak lint imports typecheck pytest services bench bench-cluster clean dist

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11, 2))' || \
		{ echo "Python 3.11.2 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $(STAMP)

## Start the gateway on embedded SQLite (HTTP :8180) and print how to log in.
## The web UI is built first when it is missing or older than its sources (needs npm).
run: $(STAMP) web
	@echo "the agentmail command is $(BIN)/agentmail (README.md, \"Command line\")"
	$(BIN)/agentmail serve

## Everything CI runs: ruff, import-linter, mypy, pytest (SQLite and PostgreSQL), the web UI's
## checks and its browser suite; each suite's time.
test: $(STAMP) services lint imports typecheck pytest

## The long run: the fuzz and schemathesis suites with ten times the examples, drawn at
## random (AGENTMAIL_TEST_PROFILE=long, tests/support/fuzzing.py). A suite joins it by
## being marked `@pytest.mark.fuzz`, or by adding its own selection to LONG_SUITES.
LONG_SUITES ?= -m fuzz
test-long: $(STAMP) services
	@AGENTMAIL_TEST_PROFILE=long scripts/timed "pytest (long)" $(BIN)/pytest $(LONG_SUITES)

## The soak: ten minutes of mixed load on one gateway (200 SSE, 50 IMAP IDLE, REST and
## SMTP senders, readers; bench/soak.py), printing latency, errors, RSS and open fds each
## minute. Not part of `make test`. SOAK_ARGS passes options (--minutes 30,
## --database-url postgresql://…).
SOAK_ARGS ?=
soak: $(STAMP) services
	@scripts/timed "soak" $(BIN)/python bench/soak.py $(SOAK_ARGS)

lint: $(STAMP)
	@scripts/timed "ruff" sh -c '$(BIN)/ruff check . && $(BIN)/ruff format --check .'

## The dependency rule of docs/architecture.md (contracts in pyproject.toml).
imports: $(STAMP)
	@scripts/timed "import-linter" $(BIN)/lint-imports

typecheck: $(STAMP)
	@scripts/timed "mypy" $(BIN)/mypy

## Test files are spread over PYTEST_WORKERS processes (pytest-xdist, one file per worker
## at a time): most of a test's time is spent waiting on real servers and clients, so three
## workers on two cores finish in about half the time of one.
PYTEST_WORKERS ?= 3
pytest: $(STAMP) services
	@scripts/timed "pytest" $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile

# ── The web UI (web/) ──────────────────────────────────────────────────────────
.PHONY: web web-test
TIMED := scripts/timed
WEB_SOURCES := $(shell find web/src web/public -type f 2>/dev/null) \
	web/index.html web/vite.config.ts web/tsconfig.json web/package.json web/package-lock.json
NO_NPM := npm not found: the API runs without the web UI (install Node.js 20+ for it)

## `make test` ends with the web UI's checks.
test: web-test

# npm writes node_modules/.package-lock.json on every install: newer than the lock = current.
web/node_modules/.package-lock.json: web/package-lock.json
	@$(TIMED) "npm ci" sh -c 'cd web && npm ci --no-audit --no-fund'

web/dist/index.html: $(WEB_SOURCES) web/node_modules/.package-lock.json
	@$(TIMED) "web build" sh -c 'cd web && npm run build'

## Build the web UI (web/dist) if it is missing or stale; without npm, say so and go on.
web:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory web/dist/index.html; \
	else echo "$(NO_NPM)"; fi

## The web UI's checks: API types vs the OpenAPI document, tsc, Vitest, build + bundle size.
web-test: $(STAMP)
	@if ! command -v npm >/dev/null 2>&1; then \
		if [ "$${CI:-}" = true ]; then echo "npm not found: CI runs the web UI tests (install Node.js 20+)" >&2; exit 1; fi; \
		echo "npm not found: skipping the web UI tests"; exit 0; fi; \
	set -e; start=$$(date +%s); \
	$(MAKE) --no-print-directory web/node_modules/.package-lock.json; \
	cd web; \
	../$(TIMED) "web check:api" npm run --silent check:api; \
	../$(TIMED) "web typecheck" npm run --silent typecheck; \
	../$(TIMED) "web vitest" npm run --silent test; \
	../$(TIMED) "web build + bundle size" npm run --silent build; \
	echo "── web-test: ok in $$(( $$(date +%s) - start ))s"

## The sdist and the wheel users install (docs/deploy.md: the wheel is built from the
## sdist, which carries web/dist), with the web UI built first when npm is there.
dist: $(STAMP) web
	$(BIN)/python -m build --no-isolation --outdir dist .

# ── The browser suite (tests/e2e, docs/web.md) ────────────────────────────────
.PHONY: e2e chromium
CHROMIUM := /usr/bin/chromium

## `make test` ends with the browser suite, after the web UI's checks.
test: e2e

## Debian's Chromium, which the e2e suite drives (never a downloaded browser build), and an
## emoji font for the UI's icons in the screenshots.
## As root (CI) it is installed with apt; otherwise say how, and fail under CI=true.
chromium:
	@if [ -x $(CHROMIUM) ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		$(TIMED) "apt-get install chromium" sh -c 'apt-get update -q && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium fonts-noto-color-emoji'; \
	else \
		echo "$(CHROMIUM) not found: the e2e suite needs Debian's Chromium (sudo apt-get install -y chromium)" >&2; \
		if [ "$${CI:-}" = true ]; then exit 1; fi; \
	fi

## The browser suite: a real gateway on free ports serving web/dist, driven by Playwright
## through Debian's Chromium (SQLite only; the storage suites cover PostgreSQL).
e2e: $(STAMP) chromium
	@if ! command -v npm >/dev/null 2>&1 || [ ! -x $(CHROMIUM) ]; then \
		if [ "$${CI:-}" = true ]; then echo "CI runs the browser suite: it needs npm and $(CHROMIUM)" >&2; exit 1; fi; \
		echo "npm or $(CHROMIUM) missing: skipping the browser suite"; exit 0; fi; \
	$(MAKE) --no-print-directory web/dist/index.html && \
	$(TIMED) "web e2e" $(BIN)/pytest -m e2e tests/e2e

# ── The platform suite (tests/platforms, docs/bridges.md) ─────────────────────
.PHONY: platforms platforms-long platforms-install

## `make test` runs the bridges against the real agent platforms too.
test: platforms

## opencode, pi and Claude Code, pinned in tests/platforms/<platform>/package.json (npm) and
## the test extras (PyPI), installed before the suite: it runs offline.
platforms-install: $(STAMP)
	@scripts/install-platforms.sh

## The bridges on the real platforms, thinking with a scripted fake model, in a network
## namespace with only loopback (scripts/offline): nothing can be fetched during the run.
## One platform's file per worker: they wait on the platforms' own processes most of the time.
## The long kill matrix (tests/platforms/test_*_long.py, marked `platform_long`) is left out.
platforms: platforms-install
	@$(TIMED) "bridges platforms" scripts/offline $(BIN)/pytest -m "platform and not platform_long" \
		-n $(PYTEST_WORKERS) --dist loadfile tests/platforms

## The whole kill matrix on the real platforms, offline as above: the suite of `make
## platforms` (cells (b) and (d), a decision while the bridge is down) and the long cells
## (a), (c) decided after the restart and (e), and gateway and bridge restarts in both
## orders (docs/bridges.md, "What survives a restart"). Not part of `make test`.
platforms-long: platforms-install
	@$(TIMED) "bridges platforms (long)" scripts/offline $(BIN)/pytest -m platform \
		-n $(PYTEST_WORKERS) --dist loadfile tests/platforms

services:
	@scripts/ensure-services.sh

bench: $(STAMP)
	$(BIN)/python bench/rest_loop.py

## 1 replica, 3 replicas and `serve --workers 2` on one PostgreSQL (bench/cluster.py).
bench-cluster: $(STAMP) services
	$(BIN)/python bench/cluster.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis web/dist web/node_modules web/screenshots
