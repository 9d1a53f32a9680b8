# The two commands: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-long lint imports typecheck pytest services bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $(STAMP)

## Start the gateway on embedded SQLite (HTTP :8180) and print how to log in.
run: $(STAMP)
	$(BIN)/agentmail serve

## Everything CI runs: ruff, import-linter, mypy, pytest (SQLite and PostgreSQL); each suite's time.
test: $(STAMP) services lint imports typecheck pytest

## The long run: the fuzz and schemathesis suites with ten times the examples, drawn at
## random (AGENTMAIL_TEST_PROFILE=long, tests/support/fuzzing.py). A suite joins it by
## being marked `@pytest.mark.fuzz`, or by adding its own selection to LONG_SUITES.
LONG_SUITES ?= -m fuzz
test-long: $(STAMP) services
	@AGENTMAIL_TEST_PROFILE=long scripts/timed "pytest (long)" $(BIN)/pytest $(LONG_SUITES)

lint: $(STAMP)
	@scripts/timed "ruff" sh -c '$(BIN)/ruff check . && $(BIN)/ruff format --check .'

## The dependency rule of docs/architecture.md (contracts in pyproject.toml).
imports: $(STAMP)
	@scripts/timed "import-linter" $(BIN)/lint-imports

typecheck: $(STAMP)
	@scripts/timed "mypy" $(BIN)/mypy

pytest: $(STAMP) services
	@scripts/timed "pytest" $(BIN)/pytest

services:
	@scripts/ensure-services.sh

bench: $(STAMP)
	$(BIN)/python bench/rest_loop.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
