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

# the whole suite, after the lint (ruff and the architecture contracts): what CI runs
test: lint
	$(BIN)/python -m pytest -q -p no:cacheprovider

test-unit: setup
	$(BIN)/python -m pytest -q -m "not integration"

test-integration: setup
	$(BIN)/python -m pytest -q tests/integration

bench: setup
	$(BIN)/python benchmarks/bench_ingest.py
	$(BIN)/python benchmarks/bench_cluster.py

# ruff, then the import-linter contracts of pyproject.toml. The contracts are checked on
# an installed copy (pip --target): the editable install hides storage/, actors/ and
# evals/ from the import graph, since they live outside vault_ray/ in the checkout.
lint: setup
	$(BIN)/ruff check vault_ray storage actors evals tests benchmarks
	rm -rf build/lint build/lib
	$(BIN)/pip install -q --no-deps --no-build-isolation --target build/lint .
	cd build && PYTHONPATH=lint ../$(BIN)/lint-imports ../pyproject.toml

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
