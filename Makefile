# The two commands: `make run` and `make test` (see README.md); `make upgrade` moves the
# locked dependencies to their newest releases and runs `make test`.
PYTHON ?= python3
# Python writes bytecode here even where the environment says not to
# (PYTHONDONTWRITEBYTECODE=1, common in containers; empty counts as unset): the suite
# starts some 280 Python processes (gateways, bridges, the command line), and each would
# compile the project's modules anew, ~0.35 s of CPU a start.
export PYTHONDONTWRITEBYTECODE :=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast test-stress test-durations test-long test-outside test-cluster soak imaptest lint imports typecheck pytest services bench \
	bench-cluster bench-outside clean dist

# ── Dependencies: the lock files (docs/deploy.md, "Dependencies") ─────────────
# requirements/dev.txt pins, with hashes, every package of .venv: the runtime
# dependencies, the `test` and `claude` extras and what the build backend needs for the
# editable install of the checkout. requirements/runtime.txt pins the
# runtime ones alone, at the same versions: what deploy/install.sh installs.
LOCK := requirements/dev.txt
RUNTIME_LOCK := requirements/runtime.txt

# .venv is made anew from the lock whenever the lock or pyproject.toml changes, so it
# holds exactly the locked packages (tests/unit/test_locked_environment.py checks it);
# the project itself goes in editable, with no dependency of its own resolved.
$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11, 2))' || \
		{ echo "Python 3.11.2 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv --clear $(VENV)
	@# Python 3.11's venv seeds setuptools, which nothing here needs (the lock would pin it).
	@if $(BIN)/pip show -q setuptools 2>/dev/null; then $(BIN)/pip uninstall -q -y setuptools; fi
	@scripts/timed "venv from $(LOCK)" $(BIN)/pip install -q --require-hashes -r $(LOCK)
	$(BIN)/pip install -q --no-deps --no-build-isolation -e .
	@touch $(STAMP)

# pip-compile (pip-tools), in a virtualenv of its own: its packages stay out of .venv.
# It resolves for the Python it runs on, so it runs on the floor, Debian 12's python3
# (3.11.2): a release that needs a later Python (soupsieve 4 needs 3.11.5) is not locked.
LOCK_PYTHON ?= /usr/bin/python3
TOOLS := $(VENV)/pip-tools
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(TOOLS)/bin/pip-compile --quiet \
	--generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links

$(TOOLS)/bin/pip-compile:
	@$(LOCK_PYTHON) -c 'import sys; sys.exit(sys.version_info[:3] != (3, 11, 2))' || \
		{ echo "make lock needs Python 3.11.2, the floor (give LOCK_PYTHON=...)"; exit 1; }
	$(LOCK_PYTHON) -m venv --clear $(TOOLS)
	$(TOOLS)/bin/pip install -q pip==26.3 pip-tools==7.6.2

.PHONY: lock upgrade
## Write the lock files from pyproject.toml, keeping every pin that still fits its range
## (after adding or changing a dependency there).
lock: $(TOOLS)/bin/pip-compile
	$(PIP_COMPILE) $(LOCK_ARGS) --extra test --extra claude --build-deps-for editable \
		-o $(LOCK) pyproject.toml
	$(PIP_COMPILE) -c $(LOCK) -o $(RUNTIME_LOCK) pyproject.toml

## Move every pin to the newest version pyproject.toml's ranges allow, make .venv anew
## from the new lock and run the whole suite (`make test`); review and commit the lock.
upgrade:
	@$(MAKE) --no-print-directory lock LOCK_ARGS=--upgrade
	@$(MAKE) --no-print-directory test

## Start the gateway on embedded SQLite (HTTP :8180) and print how to log in.
## The web UI is built first when it is missing or older than its sources (needs npm).
run: $(STAMP) web
	@echo "the agentmail command is $(BIN)/agentmail (README.md, \"Command line\")"
	$(BIN)/agentmail serve

## Everything CI runs: ruff, import-linter, mypy, pytest (SQLite and PostgreSQL), the web UI's
## checks and its browser suite; each suite's time.
test: $(STAMP) services lint imports typecheck pytest

## The fast tier, for every change: ruff, then the unit tests (tests/unit), the domain
## tests (tests/domain: core's rules on a store opened in process, SQLite and PostgreSQL)
## and the store's contract suite (tests/contract: both backends' rows compared), no
## gateway started; under two minutes on 2 cores. `make test` runs them too.
test-fast: $(STAMP) services lint
	@scripts/timed "pytest unit + domain + contract" $(BIN)/pytest -n 2 \
		tests/unit tests/domain tests/contract

## The whole pytest suite while a second load keeps every CPU busy (scripts/saturated:
## `nproc` busy loops at normal priority, stopped when the suite ends, pass or fail). A
## test that needs a quick machine (a sleep for a wait, a deadline asserted) fails here.
## Not part of `make test` or CI: it takes longer, and the machine is unusable meanwhile.
test-stress: $(STAMP) services
	@scripts/timed "pytest (CPUs saturated)" scripts/saturated \
		$(BIN)/pytest -n $(PYTEST_WORKERS) $(PYTEST_DIST)

## The long run: the fuzz and schemathesis suites with ten times the examples, drawn at
## random (AGENTMAIL_TEST_PROFILE=long, tests/support/fuzzing.py). A suite joins it by
## being marked `@pytest.mark.fuzz`, or by adding its own selection to LONG_SUITES.
LONG_SUITES ?= -m fuzz
test-long: $(STAMP) services
	@AGENTMAIL_TEST_PROFILE=long scripts/timed "pytest (long)" $(BIN)/pytest --timeout 0 $(LONG_SUITES)

## The outside world's scenarios on both databases, not in CI: every test marked `outside`
## (tests/support/outside: Debian's Postfix and Dovecot and a DNS server for the test zones,
## each in a network namespace with no route out; docs/testing.md, "The outside world").
## Needs root. The long ones live in tests/outside (outbound mail through a smarthost
## killed and restarted, …), which a plain `pytest` leaves out; `make test` runs the cheap
## ones among them (tests/integration, tests/domain) as well.
## AGENTMAIL_OUTSIDE_KEEP=1 keeps a failed test's world's files (logs, queue, mailbox).
test-outside: $(STAMP) services
	@scripts/timed "pytest (outside world)" $(BIN)/pytest -m outside -n $(PYTEST_WORKERS) \
		$(PYTEST_DIST) tests/outside tests/integration tests/domain

## The cluster world's scenarios, not in CI as a whole: every test marked `cluster`
## (tests/support/cluster_world.py: three replicas, each in a network namespace with a
## data dir of its own, on PostgreSQL and SeaweedFS, behind Debian's nginx; docs/testing.md,
## "The cluster world"). tests/cluster holds the long ones (mail read byte-equal across
## replicas, a rolling upgrade onto a test-only migration), which a plain `pytest` leaves
## out; `make test` runs tests/integration's (a replica killed, the object store away).
## Needs root for the namespaces (else the replicas take 127.0.0.2-4).
test-cluster: $(STAMP) services
	@scripts/timed "pytest (cluster world)" $(BIN)/pytest -m cluster -n 2 $(PYTEST_DIST) \
		tests/cluster tests/integration

## The soak: ten minutes of mixed load on one gateway (200 SSE, 50 IMAP IDLE, REST and
## SMTP senders, readers; bench/soak.py), printing latency, errors, RSS and open fds each
## minute. Not part of `make test`. SOAK_ARGS passes options (--minutes 30,
## --database-url postgresql://…).
SOAK_ARGS ?=
soak: $(STAMP) services
	@scripts/timed "soak" $(BIN)/python bench/soak.py $(SOAK_ARGS)

## imaptest, Dovecot's IMAP compliance and stress tool, against the gateway and Dovecot 2.3
## (bench/imaptest_compare.py): each of its scripted test groups on both servers, a table of
## which pass, and the gateway's first errors where Dovecot passes. imaptest is built from
## source first (docs/testing.md, "imaptest"). IMAPTEST_ARGS passes options (--stress adds
## its stress mixes, --only fetch,list, --keep for the rawlogs). Not part of `make test` or CI.
IMAPTEST_ARGS ?=
imaptest: $(STAMP) services
	@scripts/timed "imaptest" $(BIN)/python bench/imaptest_compare.py $(IMAPTEST_ARGS)

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
## Each tier is timed on its own: the unit, domain and contract tests (the fast tier), then
## the integration tests, which start a gateway each.
PYTEST_WORKERS ?= 3
## One file per worker at a time, heaviest files first (tests/support/file_order.py).
PYTEST_DIST := --dist loadfile --no-loadscope-reorder
pytest: $(STAMP) services push-service
	@scripts/timed "pytest unit + domain + contract" $(BIN)/pytest -n $(PYTEST_WORKERS) \
		$(PYTEST_DIST) tests/unit tests/domain tests/contract
	@scripts/timed "pytest integration" $(BIN)/pytest -n $(PYTEST_WORKERS) $(PYTEST_DIST) \
		tests/integration

## The local Web Push service tests/integration/test_web_push.py posts to (npm's
## web-push-testing), pinned by tests/support/push_service/package.json + its lock and
## installed from the npm registry like the web UI's packages; the test runs offline.
PUSH_SERVICE := tests/support/push_service
.PHONY: push-service
push-service: $(PUSH_SERVICE)/node_modules/.package-lock.json

$(PUSH_SERVICE)/node_modules/.package-lock.json: $(PUSH_SERVICE)/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
		if [ "$${CI:-}" = true ]; then echo "npm not found: CI runs the Web Push test" >&2; exit 1; fi; \
		echo "npm not found: tests/integration/test_web_push.py is skipped"; exit 0; fi; \
	$(TIMED) "npm ci (push service)" sh -c 'cd $(PUSH_SERVICE) && npm ci --no-audit --no-fund'

## `make pytest` that writes each file's seconds to tests/file_seconds.json, the order
## the files start in: run it on an idle machine after adding or much changing a test file.
test-durations: $(STAMP) services
	AGENTMAIL_RECORD_FILE_SECONDS=1 $(MAKE) pytest

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

## `make test` ends with the browser suite and the platform suite side by side, after the
## web UI's checks: both mostly wait on other processes (Chromium, the agent platforms),
## so together they take little longer than the longer one alone. Each one's output is
## printed whole when it ends (make -O).
test: e2e-and-platforms
.PHONY: e2e-and-platforms
e2e-and-platforms:
	@$(MAKE) --no-print-directory -j2 -Otarget e2e platforms

## Debian's Chromium, which the e2e suite drives (never a downloaded browser build), and a
## Chinese font (fonts-wqy-microhei, 1.6 MB): without one the Chinese walk would measure
## empty boxes. The UI's icons are SVG (lucide), so no emoji font is needed.
## As root (CI) they are installed with apt; otherwise say how, and fail under CI=true.
CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
chromium:
	@if [ -x $(CHROMIUM) ] && [ -e $(CJK_FONT) ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		$(TIMED) "apt-get install chromium" sh -c 'apt-get update -q && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium fonts-wqy-microhei'; \
	else \
		echo "$(CHROMIUM) or $(CJK_FONT) not found: the e2e suite needs Debian's Chromium and a Chinese font (sudo apt-get install -y chromium fonts-wqy-microhei)" >&2; \
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

## `make test` runs the bridges against the real agent platforms too (beside the browser
## suite: e2e-and-platforms above).

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
		-n $(PYTEST_WORKERS) $(PYTEST_DIST) tests/platforms

## The whole kill matrix on the real platforms, offline as above: the suite of `make
## platforms` (cells (b) and (d), a decision while the bridge is down) and the long cells
## (a), (c) decided after the restart and (e), and gateway and bridge restarts in both
## orders (docs/bridges.md, "What survives a restart"). Not part of `make test`.
platforms-long: platforms-install
	@$(TIMED) "bridges platforms (long)" scripts/offline $(BIN)/pytest -m platform \
		-n $(PYTEST_WORKERS) $(PYTEST_DIST) tests/platforms

services:
	@scripts/ensure-services.sh

bench: $(STAMP)
	$(BIN)/python bench/rest_loop.py

## Outbound mail into the outside world's Postfix and inbound SPF/DKIM/DMARC checks, beside
## SMTP submission in the same run (bench/outside.py; docs/performance.md). Needs root.
bench-outside: $(STAMP) services
	$(BIN)/python bench/outside.py $(BENCH_OUTSIDE_ARGS)

## 1 replica, 3 replicas and `serve --workers 2` on one PostgreSQL (bench/cluster.py).
bench-cluster: $(STAMP) services
	$(BIN)/python bench/cluster.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis web/dist web/node_modules web/screenshots
