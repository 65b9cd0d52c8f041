# The two commands of the README. Each works on a fresh machine with only Python 3.11:
#   make demo   set up .venv, analyse the bundled corpus, show the refactoring as a diff, bench
#               every corpus program, say where the results are
#   make test   set up .venv with every extra, run lint, type check and the whole test suite
# Re-running is fast: .venv is rebuilt only when pyproject.toml changes.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEMO_OUT := build/demo

.PHONY: demo test test-pythons lint typecheck pytest clean

$(VENV)/.installed-base: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-all: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,tf,torch,tfp]'
	# tf_keras, which TensorFlow Probability imports, without the `tensorflow` distribution it
	# names (its files would replace tensorflow-cpu's; see the tfp extra in pyproject.toml).
	$(BIN)/python -m pip install --quiet --no-deps 'tf-keras==2.21.0'
	touch $(VENV)/.installed-base $@

# The demo's bench step needs TensorFlow (the analysis does not).
$(VENV)/.installed-tf: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[tf]'
	touch $(VENV)/.installed-base $@

# The demo's bench of corpus/torch needs PyTorch (the torch 2.13 wheel is a local one for 3.11,
# found through pip's find-links).
$(VENV)/.installed-torch: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[torch]'
	touch $(VENV)/.installed-base $@

# bench in the demo: every corpus program (corpus/tensorflow and corpus/torch) at its default
# (short) length, with short timing budgets and one whole-program run each, so that it stays
# within minutes on 2 cores; benchmarks/corpus_speedups.py passes each program's output
# tolerance and merges the reports into $(DEMO_OUT)/report.{json,md,html}. The torch programs
# are measured with torch.compile's aot_eager backend: Inductor's cold compile costs 15-22 s per
# function on 2 cores (21 torch candidates: 7 more minutes, plus the whole-program runs'
# compiles), while aot_eager captures the same graphs and graph breaks in about a second each.
# The figures of docs/benchmarks.md come from the same script with its default budgets, Inductor, and each
# program's bench_entry (five times the training length).
demo: $(VENV)/.installed-base $(VENV)/.installed-tf $(VENV)/.installed-torch
	mkdir -p $(DEMO_OUT)
	$(BIN)/hybridize analyze corpus --no-cache > $(DEMO_OUT)/analysis.txt
	$(BIN)/hybridize analyze corpus --no-cache --format json > $(DEMO_OUT)/analysis.json
	$(BIN)/hybridize analyze corpus --no-cache --format sarif > $(DEMO_OUT)/analysis.sarif
	$(BIN)/hybridize refactor corpus --no-cache > $(DEMO_OUT)/refactor.diff
	$(BIN)/python benchmarks/corpus_speedups.py --out $(DEMO_OUT)/bench --budget 0.5 \
		--min-rounds 5 --program-runs 1 --default-length --torch-backend aot_eager
	cp $(DEMO_OUT)/bench/report.json $(DEMO_OUT)/bench/report.md $(DEMO_OUT)/bench/report.html $(DEMO_OUT)/
	tail -n 1 $(DEMO_OUT)/analysis.txt
	@echo "Results: $(DEMO_OUT)/analysis.txt, $(DEMO_OUT)/analysis.json, $(DEMO_OUT)/analysis.sarif, $(DEMO_OUT)/refactor.diff, $(DEMO_OUT)/report.{json,md,html} (per program: $(DEMO_OUT)/bench/)"

lint: $(VENV)/.installed-all
	$(BIN)/ruff check .
	$(BIN)/ruff format --check hybridize tools tests benchmarks

typecheck: $(VENV)/.installed-all
	$(BIN)/mypy

pytest: $(VENV)/.installed-all
	$(BIN)/python -m pytest -q

test: lint typecheck pytest

# The framework-free suites on the other supported Pythons (3.10, 3.12, 3.13 from pyenv), each in
# its own venv under build/; the development .venv stays on 3.11.
test-pythons:
	bash tools/test_pythons.sh

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache
