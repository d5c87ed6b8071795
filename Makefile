# One-command set-up: `make test` and `make train` create .venv if missing and install the
# project into it. TORCH pins the torch version this project is tested with (pip takes the
# build its index offers); `make TORCH=torch train` lets pip choose any version.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
TORCH  ?= torch==2.13.0
STAMP  := $(VENV)/.installed

.PHONY: setup test test-fast train bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[test,openspiel]"
	touch $(STAMP)

# The browser tests drive Debian's headless Chromium (CI runs as root).
test: $(STAMP)
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update && apt-get install -y chromium chromium-driver)
	$(PY) -m pytest -q -n auto

# The unit tests alone (no command, training run, worker process, browser or shipped network at
# its playing budget: the `integration` marker, pyproject.toml): about a minute on 2 cores.
test-fast: $(STAMP)
	$(PY) -m pytest -q -n auto -m "not slow and not integration"

train: $(STAMP)
	$(PY) -m alphazero.train +recipe=quick

bench: $(STAMP)
	scripts/all.sh

clean:
	rm -rf $(VENV) runs outputs .pytest_cache
