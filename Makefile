# The two commands of the README's quick start. Both build .venv on a fresh machine, with the exact
# versions of uv.lock (installed by uv, itself pinned and installed from PyPI into .venv-tools;
# --system-certs: uv trusts the machine's certificate store, as pip does).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TOOLS := .venv-tools
UV := $(TOOLS)/bin/uv
UV_VERSION := 0.13.9
RUNTIME := $(VENV)/.runtime-installed
STAMP := $(VENV)/.installed
# `make image`'s own tools beside uv: pypa's installer (unpacks uv.lock's wheels into the image's
# virtual environment) and cyclonedx-py (the SBOM); mmdebstrap comes from Debian (image/README.md).
IMAGE_TOOLS := $(TOOLS)/.image-tools

.PHONY: run test lint typecheck unit bench fuzz lock install clean proto docs docs-serve image image-tools

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet uv==$(UV_VERSION)

# `make run` needs only what deppy itself uses; the tools of `make test` come on top of it.
$(RUNTIME): pyproject.toml uv.lock | $(UV)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --frozen --inexact --system-certs --python $(PYTHON) --quiet
	touch $(RUNTIME)

$(STAMP): pyproject.toml uv.lock | $(UV)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --frozen --extra dev --system-certs --python $(PYTHON) --quiet
	touch $(RUNTIME) $(STAMP)

$(IMAGE_TOOLS): | $(UV)
	@echo "image: the build's tools (pypa's installer, cyclonedx-bom) into $(TOOLS) …"
	$(TOOLS)/bin/pip install --quiet installer==1.1.0 cyclonedx-bom==7.5.0
	touch $(IMAGE_TOOLS)

image-tools: $(IMAGE_TOOLS)

image: $(IMAGE_TOOLS)  ## the container image as an OCI layout: oci:dist/image:VERSION (image/README.md)
	$(TOOLS)/bin/python image/build.py

install: $(RUNTIME)  ## .venv/bin/deppy, or `source .venv/bin/activate` to have `deppy` on PATH

run: $(RUNTIME)
	$(BIN)/deppy resolve -f src/deppy/data/request.yaml

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks docs/hooks image
	$(BIN)/ruff format --check src tests benchmarks docs/hooks image
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

docs: $(STAMP)  ## the documentation site into site/; tests/test_docs.py builds it too
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: docs  ## the site at http://127.0.0.1:8000/: its search works there, not from file://
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory site 8000

fuzz: $(STAMP)  ## the long fuzz profile (minutes); `make test` runs the short one
	DEPPY_FUZZ=long $(BIN)/pytest tests/test_fuzz.py tests/test_fuzz_fleet_olmv1.py tests/test_fuzz_registry.py -s -p no:randomly

bench: $(STAMP)
	$(BIN)/python benchmarks/solver_perf.py
	$(BIN)/python benchmarks/startup.py

proto: $(STAMP)  ## regenerate deppy/cluster/registry_pb2*.py from registry.proto (grpcio-tools)
	cd src && ../$(BIN)/python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. \
		--grpc_python_out=. deppy/cluster/registry.proto

lock: $(UV)  ## after changing dependencies in pyproject.toml
	$(UV) lock --system-certs

clean:
	rm -rf $(VENV) $(TOOLS) build site src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
