# The two commands of the README. Each works on a fresh machine with only Python 3.11:
#   make demo   set up .venv, run the analysis on the bundled corpus, say where the results are
#   make test   set up .venv with every extra, run lint, type check and the whole test suite
# Re-running is fast: .venv is rebuilt only when pyproject.toml changes.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEMO_OUT := build/demo

.PHONY: demo test lint typecheck pytest clean

$(VENV)/.installed-base: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-all: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,tf,torch]'
	touch $(VENV)/.installed-base $@

demo: $(VENV)/.installed-base
	mkdir -p $(DEMO_OUT)
	$(BIN)/hybridize analyze corpus --no-cache > $(DEMO_OUT)/analysis.txt
	$(BIN)/hybridize analyze corpus --no-cache --format json > $(DEMO_OUT)/analysis.json
	$(BIN)/hybridize analyze corpus --no-cache --format sarif > $(DEMO_OUT)/analysis.sarif
	tail -n 1 $(DEMO_OUT)/analysis.txt
	@echo "Results: $(DEMO_OUT)/analysis.txt, $(DEMO_OUT)/analysis.json, $(DEMO_OUT)/analysis.sarif"

lint: $(VENV)/.installed-all
	$(BIN)/ruff check .
	$(BIN)/ruff format --check hybridize analyzer refactor lsp compiler tests benchmarks

typecheck: $(VENV)/.installed-all
	$(BIN)/mypy

pytest: $(VENV)/.installed-all
	$(BIN)/python -m pytest -q

test: lint typecheck pytest

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache
