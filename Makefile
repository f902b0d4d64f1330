# Targets the README names. `make test` and `make demo` install what they need
# into .venv on a fresh machine (torch comes from the CPU wheel, torch==2.13.0).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: setup browser demo test test-unit test-integration bench bench-quick bench-detail lint clean

setup: $(VENV)/.installed

# uv installs in about 15 s what pip takes about 2.75 minutes for. It does not compile the bytecode: compiling all of
# site-packages (torch, transformers, Ray: about 23,000 files) took 90 s and 100 CPU-s, while the test run imports
# about 5,000 of them. Each is compiled when a process first imports it and kept, as Python does, so PYTHONDONTWRITEBYTECODE
# (set on some hosts) is unset for every command here: with it set, every process compiled torch and Ray again (a CI run
# was 200 s slower). uv does not read pip's configuration, so it is given pip's find-links folders (where the CPU torch
# wheel lies: without it torch==2.13.0 is the CUDA build). If uv cannot be had or fails, pip installs as before.
unexport PYTHONDONTWRITEBYTECODE
FIND_LINKS := $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	@if $(BIN)/pip install -q uv && $(BIN)/uv pip install -q --python $(BIN)/python \
	    $(addprefix --find-links ,$(FIND_LINKS)) torch==2.13.0 -e '.[dev]'; then :; else \
	  echo "uv could not install the dependencies: pip installs them (about 3 minutes)"; \
	  $(BIN)/pip install -q torch==2.13.0 && $(BIN)/pip install -q -e '.[dev]'; \
	fi
	touch $@

# The inbox page's browser test drives Debian's headless Chromium (Selenium): install
# chromium and chromium-driver when they are missing (CI runs as root on Debian; elsewhere
# sudo asks). Nothing else is downloaded: Selenium is told the paths.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  command -v apt-get >/dev/null || { echo "install chromium and chromedriver (no apt-get here)" >&2; exit 1; }; \
	  echo "installing chromium and chromium-driver for the inbox page's browser test"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	    chromium chromium-driver >/dev/null; \
	fi

demo: setup
	$(BIN)/vault-ray demo

# the whole suite, after the lint (ruff and the architecture contracts): what CI runs. Three
# lanes of pytest processes side by side, each printing its slowest tests: (A) the tests of
# tests/integration that share the session's Ray runtime (servers and CLI processes it mostly
# waits on); (B) most of the in-process tests; (C) the integration tests with a Ray of their own
# (marked own_ray by tests/integration/conftest.py), then the rest of the in-process tests. With
# two lanes a core stood idle about 8% of the time (while both waited on processes starting); the
# in-process tests fill it. Which in-process module runs in B or C: tests/lanes.py, by measured
# cost (LANE_SHARES: B's and C's shares of it). The lanes take about as long. A's and C's output
# follows B's. Any run failing fails the target.
# Each pytest process has a --basetemp of its own: side by side, two processes cleaning the shared
# /tmp/pytest-of-USER at exit can race (a warning, which pyproject's filterwarnings makes an error).
# The in-process tests run torch and FAISS on one OpenMP thread (OMP_NUM_THREADS=1, unless set): the
# local model embeds one short text at a time there, where a second thread bought nothing while the
# other lanes need the core (the extraction tests: 97 CPU-s with two threads, 77 with one, in about the same time).
PYTEST = $(BIN)/python -m pytest -q -p no:cacheprovider
LANE_SHARES = 72,28
INPROC = OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} VAULT_RAY_LANE_SHARES=$(LANE_SHARES) $(PYTEST) --ignore=tests/integration
test: lint browser
	@tmp=$$(mktemp -d); echo "three lanes side by side: B's output first, then A's and C's"; \
	$(PYTEST) --basetemp=$$tmp/a --durations=15 -m "not own_ray" tests/integration > $$tmp/lane_a.log 2>&1 & pid_a=$$!; \
	( $(PYTEST) --basetemp=$$tmp/c1 --durations=8 -m own_ray tests/integration; a=$$?; \
	  echo "== C: the in-process tests of lane 2"; \
	  VAULT_RAY_LANE=2 $(INPROC) --basetemp=$$tmp/c2 --durations=8; b=$$?; \
	  echo "own Ray: exit $$a; in-process lane 2: exit $$b"; [ $$a -eq 0 ] && [ $$b -eq 0 ] ) > $$tmp/lane_c.log 2>&1 & pid_c=$$!; \
	echo "== B: the in-process tests of lane 1"; \
	VAULT_RAY_LANE=1 $(INPROC) --basetemp=$$tmp/b --durations=10; lane_b=$$?; \
	wait $$pid_c; lane_c=$$?; wait $$pid_a; lane_a=$$?; \
	echo "== A: tests/integration on the session's Ray"; cat $$tmp/lane_a.log; \
	echo "== C: tests/integration with a Ray of their own"; cat $$tmp/lane_c.log; \
	echo "lane A (integration, session Ray): exit $$lane_a; lane B (in-process): exit $$lane_b; lane C (own Ray, in-process): exit $$lane_c"; \
	if [ $$lane_a -eq 0 ] && [ $$lane_b -eq 0 ] && [ $$lane_c -eq 0 ]; then rm -rf $$tmp; else echo "the failed runs' files: $$tmp"; exit 1; fi

test-unit: setup
	$(BIN)/python -m pytest -q -m "not integration"

test-integration: setup browser
	$(BIN)/python -m pytest -q tests/integration

# issue 16's targets table, each row beside its raw parts (docs/benchmarks.md); --quick: a ~2-minute smoke run
bench: setup
	$(BIN)/python benchmarks/bench_targets.py

bench-quick: setup
	$(BIN)/python benchmarks/bench_targets.py --quick

# the stage-by-stage ingest breakdown, the cluster-mode comparison and resolution by entity count (docs/benchmarks*.md)
bench-detail: setup
	$(BIN)/python benchmarks/bench_ingest.py
	$(BIN)/python benchmarks/bench_cluster.py
	$(BIN)/python benchmarks/bench_resolution.py

# ruff, then the import-linter contracts of pyproject.toml. storage/, actors/ and evals/
# live at the repository root (installed as vault_ray.storage, ... by package-dir); the
# links vault_ray/storage, vault_ray/actors and vault_ray/evals show them to the import
# graph of the checkout, so a plain `lint-imports` sees every module.
lint: setup
	$(BIN)/ruff check --no-cache vault_ray storage actors evals tests benchmarks
	$(BIN)/lint-imports --no-cache

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
