# Synapse task runner. `make` (or `make help`) lists the targets with their descriptions.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.synapse-installed
DASHBOARD := src/synapse_agents/web/static/index.html
POSTGRES_URL ?= postgresql://postgres@127.0.0.1:5432/test
PYTEST_ARGS ?=
# pytest's parallel workers (pytest-xdist; 0 runs in one process). Each test module stays on one
# worker (--dist loadscope), so a module's Chromium and OpenAPI document are built once. Modules go
# out in collection order, which puts the slow ones first (tests/conftest.py); xdist's own reorder
# (most tests first) would send the long browser modules, each of a few tests, out last.
PYTEST_WORKERS ?= 2
PYTEST_PARALLEL = -n $(PYTEST_WORKERS) $(if $(filter-out 0,$(PYTEST_WORKERS)),--dist loadscope --no-loadscope-reorder,)

.DEFAULT_GOAL := help
.PHONY: help install demo serve test test-python test-sqlite test-frontend lint format typecheck wheel clean frontend browser bench api-types

help: ## Show this list of targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-14s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# The dashboard is built first (order-only: a frontend edit does not reinstall Python), so its npm
# output shows here; the package build (hatch_build.py) then finds it built and skips it.
$(STAMP): pyproject.toml | $(DASHBOARD)
	@echo '==> Creating the virtual environment in $(VENV)'
	$(PYTHON) -m venv $(VENV)
	@echo '==> Installing Synapse and its development dependencies (a minute or two on a fresh machine)'
	$(BIN)/python -m pip install --quiet --upgrade pip
	bash -o pipefail -c "$(BIN)/python -m pip install --progress-bar off -e '.[dev]' 2>&1 | awk '/^(Collecting|Successfully installed|ERROR)/ { print substr(\$$0, 1, 110); fflush() }'"
	@touch $(STAMP)

# The dashboard (frontend/, React + Vite) is built into the package; git ignores the output.
NODE_MODULES := frontend/node_modules/.package-lock.json
FRONTEND_SOURCES := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
	frontend/index.html frontend/package.json frontend/vite.config.ts frontend/tsconfig.json frontend/openapi.json
CHROMIUM := /usr/bin/chromium

$(NODE_MODULES): frontend/package-lock.json
	@echo '==> Installing the dashboard build tools (npm ci, a minute or two on a fresh clone)'
	cd frontend && npm ci --no-audit --no-fund
	@touch $(NODE_MODULES)

$(DASHBOARD): $(NODE_MODULES) $(FRONTEND_SOURCES)
	@echo '==> Building the dashboard (npm run build, about a minute)'
	cd frontend && npm run build

frontend: $(DASHBOARD) ## Build the dashboard into the package (npm ci first when node_modules is stale)

# The API contract: the app's OpenAPI document, committed, and the dashboard's types generated from it
# (`npm run build` regenerates the types from the committed document; only this target needs Python).
api-types: $(STAMP) $(NODE_MODULES) ## Regenerate frontend/openapi.json from the app, then the dashboard's API types from it
	$(BIN)/python scripts/export_openapi.py
	cd frontend && npm run api-types

browser: ## Install Debian's Chromium for the browser tests when /usr/bin/chromium is missing
	@if [ ! -x $(CHROMIUM) ]; then apt-get update && apt-get install -y chromium; fi

install: $(STAMP) $(DASHBOARD) ## Create .venv, install Synapse with every development dependency, build the dashboard

demo: install ## Install everything, then serve the offline demo agents on the embedded SQLite store (PORT=8765)
	@echo '==> Serving the demo agents'
	$(BIN)/synapse serve --demo $(if $(PORT),--port $(PORT),)

serve: install ## Install everything, then serve the agents of this folder (PORT=8765)
	$(BIN)/synapse serve $(if $(PORT),--port $(PORT),)

# Each stage prints its wall time (.ci/timed).
test: install browser ## Install everything, then run every test: vitest, then pytest in parallel workers (browser tests included) on SQLite and PostgreSQL
	@.ci/timed vitest $(MAKE) --no-print-directory test-frontend
	@.ci/timed pytest $(MAKE) --no-print-directory test-python

test-python: install browser ## Run pytest only, in parallel workers, on SQLite and PostgreSQL (what `make test` runs after vitest)
	SYNAPSE_TEST_POSTGRES_URL=$(POSTGRES_URL) $(BIN)/python -m pytest --db all $(PYTEST_PARALLEL) $(PYTEST_ARGS)

test-frontend: $(NODE_MODULES) ## Run the dashboard's unit tests (vitest, once)
	cd frontend && npm test

test-sqlite: install ## Run the test suite on SQLite only (no PostgreSQL needed)
	$(BIN)/python -m pytest --db sqlite $(PYTEST_PARALLEL) $(PYTEST_ARGS)

lint: install ## Check formatting, lint and types (ruff, mypy)
	$(BIN)/ruff format --check src tests bench
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

bench: install browser ## Run every benchmark (about 11 minutes with seeding; PostgreSQL too), print the table, write docs/benchmarks.md
	$(BIN)/python bench/run_all.py

format: install ## Format the code and fix what ruff can fix
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

wheel: install ## Build the wheel and sdist into dist/ and check the wheel's contents
	rm -rf dist
	$(BIN)/python -m build --outdir dist
	$(BIN)/python scripts/check_wheel.py dist/*.whl

clean: ## Remove the virtualenv, build output and caches
	rm -rf $(VENV) dist build .pytest_cache .mypy_cache .ruff_cache
	rm -rf src/synapse_agents/web/static frontend/node_modules test-artifacts
