# The two commands of the README's Quick start: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_POSTGRES := postgresql+psycopg://postgres@127.0.0.1:5432/test

.PHONY: run test test-postgres lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

## run: set up and run the game server on http://127.0.0.1:8000 (SQLite in ~/.local/share/crokinole)
run: $(STAMP)
	$(BIN)/crokinole serve

## lint: ruff check, ruff format --check and mypy --strict
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy --strict src

## test: set up, lint and run every test (slow suites included)
test: lint
	$(BIN)/pytest

## test-postgres: the server tests again, each server's data in PostgreSQL (a schema of its own)
## (127.0.0.1:5432, database "test"; another with CROKINOLE_TEST_DATABASE_URL=postgresql+psycopg://...)
test-postgres: $(STAMP)
	CROKINOLE_TEST_DATABASE_URL="$${CROKINOLE_TEST_DATABASE_URL:-$(TEST_POSTGRES)}" $(BIN)/pytest tests/server

bench: $(STAMP)
	$(BIN)/crokinole bench physics

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
