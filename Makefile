# The two commands of the README's Quick start: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_POSTGRES := postgresql+psycopg://postgres@127.0.0.1:5432/test
TEST_REDIS := redis://127.0.0.1:6379/0
# The PostgreSQL + Redis run: the server tests, and the cluster's own tests where they exist.
CLUSTER_TESTS := tests/server $(wildcard tests/cluster)
CLUSTER_ENV := CROKINOLE_TEST_DATABASE_URL="$${CROKINOLE_TEST_DATABASE_URL:-$(TEST_POSTGRES)}" \
	CROKINOLE_TEST_REDIS_URL="$${CROKINOLE_TEST_REDIS_URL:-$(TEST_REDIS)}"

# axe-core, pinned, from npm: the accessibility test (tests/web/test_axe.py) injects it.
AXE_VERSION := 4.14.1
AXE := .cache/axe/node_modules/axe-core/axe.min.js

# Lighthouse, pinned, from npm, for the page figures of docs/pages.md (on Debian's Chromium):
# 12.2.3 needs Node.js >= 18.16 and runs on Node 20 (`node --version`); Lighthouse 13 needs 22.19.
LIGHTHOUSE_VERSION := 12.2.3
LIGHTHOUSE := .cache/lighthouse/node_modules/.bin/lighthouse
CHROME_PATH ?= /usr/bin/chromium

.PHONY: run test test-postgres test-cluster lint bench clean axe lighthouse frames screens

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench,env]'
	touch $(STAMP)

## run: set up and run the game server on http://127.0.0.1:8000 (SQLite in ~/.local/share/crokinole)
run: $(STAMP)
	$(BIN)/crokinole serve

## lint: ruff check, ruff format --check and mypy --strict
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy --strict src

## test: set up, lint and run every test (slow suites included) on SQLite and the in-memory hub,
## then the server tests again on PostgreSQL + Redis (test-cluster); that second run is skipped,
## with a message, where they are not running, except in CI
test: lint $(if $(shell command -v npm),$(AXE) $(LIGHTHOUSE))
	$(BIN)/pytest -m "" --ignore=tests/cluster
	@if [ -n "$$CI" ] || $(CLUSTER_ENV) $(BIN)/python -m tests.support.server_database; then \
		$(MAKE) --no-print-directory test-cluster; \
	else \
		echo "make test: skipped the server tests on PostgreSQL + Redis (make test-cluster runs them)" >&2; \
	fi

## test-postgres: the server tests again, each server's data in PostgreSQL (a schema of its own)
## (127.0.0.1:5432, database "test"; another with CROKINOLE_TEST_DATABASE_URL=postgresql+psycopg://...)
test-postgres: $(STAMP)
	CROKINOLE_TEST_DATABASE_URL="$${CROKINOLE_TEST_DATABASE_URL:-$(TEST_POSTGRES)}" $(BIN)/pytest -m "" tests/server

## test-cluster: the server tests with every server one process of a cluster: its data in PostgreSQL
## (a schema of its own) and its games shared through Redis (a key prefix of its own), and the
## cluster's fault tests (redis://127.0.0.1:6379/0; another with CROKINOLE_TEST_REDIS_URL=redis://...)
test-cluster: $(STAMP)
	$(CLUSTER_ENV) $(BIN)/pytest -m "" $(CLUSTER_TESTS)

## axe: install axe-core $(AXE_VERSION) into .cache/axe (npm) for the accessibility test
axe: $(AXE)

$(AXE):
	npm install --silent --no-audit --no-fund --prefix .cache/axe axe-core@$(AXE_VERSION)

## lighthouse: install Lighthouse $(LIGHTHOUSE_VERSION) into .cache/lighthouse (npm) and run it (mobile)
## on every page of a fresh server: the table of docs/pages.md, reports in artifacts/lighthouse/
lighthouse: $(STAMP) $(LIGHTHOUSE)
	CHROME_PATH=$(CHROME_PATH) PYTHONPATH=$(CURDIR)/src $(BIN)/python -m benchmarks.pages.lighthouse $(ARGS)

$(LIGHTHOUSE):
	npm install --silent --no-audit --no-fund --prefix .cache/lighthouse lighthouse@$(LIGHTHOUSE_VERSION)

## screens: screenshots of every page at 360x640, 412x915 and 1280x800 into
## artifacts/screenshots/pages/ (ARGS=--docs also copies the README's pictures into docs/images/)
screens: $(STAMP)
	PYTHONPATH=$(CURDIR)/src $(BIN)/python -m benchmarks.pages.screens $(ARGS)

## frames: the frame rate of a game's shot animations and its long tasks, in Chromium at 1280x800
frames: $(STAMP)
	CHROME_PATH=$(CHROME_PATH) PYTHONPATH=$(CURDIR)/src $(BIN)/python -m benchmarks.pages.frames $(ARGS)

bench: $(STAMP)
	$(BIN)/crokinole bench physics

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .cache/axe .cache/lighthouse
