# The two commands of the README's quick start. Both build .venv on a fresh machine, with the exact
# versions of uv.lock (installed by uv, itself pinned and installed from PyPI into .venv-tools).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TOOLS := .venv-tools
UV := $(TOOLS)/bin/uv
UV_VERSION := 0.13.9
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench lock install clean

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet uv==$(UV_VERSION)

$(STAMP): pyproject.toml uv.lock | $(UV)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --frozen --extra dev --python $(PYTHON) --quiet
	touch $(STAMP)

install: $(STAMP)  ## .venv/bin/deppy, or `source .venv/bin/activate` to have `deppy` on PATH

run: $(STAMP)
	$(BIN)/deppy resolve -f src/deppy/data/request.yaml

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python benchmarks/solver_perf.py
	$(BIN)/python benchmarks/startup.py

lock: $(UV)  ## after changing dependencies in pyproject.toml
	$(UV) lock

clean:
	rm -rf $(VENV) $(TOOLS) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
