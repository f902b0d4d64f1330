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

# the whole suite, after the lint (ruff and the architecture contracts): what CI runs. Four
# pytest processes side by side, each printing its slowest tests: (A) the tests of
# tests/integration that share the session's Ray runtime (servers and CLI processes it mostly
# waits on; the Serve modules last); (C) the integration tests with a Ray of their own (marked
# own_ray by tests/integration/conftest.py), then the in-process test modules that start other
# processes (a Ray, a server, a CLI in a subprocess: tests/lanes.py); (B1, B2) the other in-process
# tests, in two halves by measured cost (tests/lanes.py, lane_weights.json), at a lower priority
# (nice $(NICE)). A and C wait on many processes in turn (Ray's actors, workers, servers, CLI
# clients), each for a moment of CPU: beside busy in-process tests at the same priority every one of
# those moments waited its turn, and with two chains a core still stood idle about 8% of the time.
# Niced, the in-process tests take what A and C leave, and both cores once those are done; a Ray
# niced that far could not start in time (Ray gives its node 30 s), so the modules that start one run
# in C, which runs a little niced (nice $(NICE_C)): A, the longest, has the first claim on the cores.
# Every Ray the tests start runs its workers (each actor, each task) at the priority of the process that
# starts it (RAY_worker_niceness=0 in tests/conftest.py): Ray adds 15 by default, which put A's actors
# below the niced in-process tests (a run took 864 s so, 794 s without).
# B1's output comes first, then A's, C's and B2's. Any run failing fails the target.
# Each pytest process has a --basetemp of its own: side by side, two processes cleaning the shared
# /tmp/pytest-of-USER at exit can race (a warning, which pyproject's filterwarnings makes an error).
# The in-process tests run torch and FAISS on one OpenMP thread (OMP_NUM_THREADS=1, unless set): the
# local model embeds one short text at a time there, where a second thread bought nothing while the
# other lanes need the core (the extraction tests: 97 CPU-s with two threads, 77 with one, in about the same time).
PYTEST = $(BIN)/python -m pytest -q -p no:cacheprovider
NICE = 10
NICE_C = 3
ONE_THREAD = OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1}
INPROC = $(PYTEST) --ignore=tests/integration
test: lint browser
	@tmp=$$(mktemp -d); echo "four pytest processes side by side: B1's output first, then A's, C's and B2's"; \
	$(PYTEST) --basetemp=$$tmp/a --durations=15 -m "not own_ray" tests/integration > $$tmp/a.log 2>&1 & pid_a=$$!; \
	( nice -n $(NICE_C) $(PYTEST) --basetemp=$$tmp/c1 --durations=10 -m own_ray tests/integration; x=$$?; \
	  echo "== C: the in-process test modules that start other processes"; \
	  VAULT_RAY_LANE=processes $(ONE_THREAD) nice -n $(NICE_C) $(INPROC) --basetemp=$$tmp/c2 --durations=8; y=$$?; \
	  echo "own Ray: exit $$x; in-process, starting processes: exit $$y"; [ $$x -eq 0 ] && [ $$y -eq 0 ] ) > $$tmp/c.log 2>&1 & pid_c=$$!; \
	VAULT_RAY_LANE=2 $(ONE_THREAD) nice -n $(NICE) $(INPROC) --basetemp=$$tmp/b2 --durations=8 > $$tmp/b2.log 2>&1 & pid_b2=$$!; \
	echo "== B1: the in-process tests, first half (niced)"; \
	VAULT_RAY_LANE=1 $(ONE_THREAD) nice -n $(NICE) $(INPROC) --basetemp=$$tmp/b1 --durations=8; b1=$$?; \
	wait $$pid_a; a=$$?; wait $$pid_c; c=$$?; wait $$pid_b2; b2=$$?; \
	echo "== A: tests/integration on the session's Ray"; cat $$tmp/a.log; \
	echo "== C: tests/integration with a Ray of their own"; cat $$tmp/c.log; \
	echo "== B2: the in-process tests, second half (niced)"; cat $$tmp/b2.log; \
	echo "A (integration, session Ray): exit $$a; C (integration, own Ray; in-process, starting processes): exit $$c; in-process B1: exit $$b1, B2: exit $$b2"; \
	if [ $$a -eq 0 ] && [ $$c -eq 0 ] && [ $$b1 -eq 0 ] && [ $$b2 -eq 0 ]; then rm -rf $$tmp; else echo "the failed runs' files: $$tmp"; exit 1; fi

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
