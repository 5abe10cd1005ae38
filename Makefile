# The two commands of the README's Quick start: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

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

bench: $(STAMP)
	$(BIN)/crokinole bench physics

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
