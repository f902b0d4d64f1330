# Targets the README names. `make test` and `make demo` install what they need
# into .venv on a fresh machine (torch comes from the CPU wheel, torch==2.13.0).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: setup demo test test-unit test-integration bench lint clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

demo: setup
	$(BIN)/vault-ray demo

test: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider

test-unit: setup
	$(BIN)/python -m pytest -q -m "not integration"

test-integration: setup
	$(BIN)/python -m pytest -q tests/integration

bench: setup
	$(BIN)/python benchmarks/bench_ingest.py
	$(BIN)/python benchmarks/bench_cluster.py

lint: setup
	$(BIN)/ruff check vault_ray storage actors evals tests benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
