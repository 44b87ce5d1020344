# gpu-node-supervisor: `make demo` runs the demo, `make test` runs the whole suite.
# Both create .venv on first use; nothing else needs installing by hand.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-replay test-real check verify-unit bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[test,metrics]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) scripts/demo.py $(ARGS)

test: $(STAMP)
	bash scripts/ensure-test-tools.sh
	$(MAKE) --no-print-directory check
	$(PY) -m pytest -n 2 -q $(PYTEST_ARGS)

# Live equals offline on every labelled log: each replayed through one real daemon per worker
# ends with diagnose's verdict (about 21 minutes on 2 cores with 2 workers; the replays mostly
# wait, so one worker takes twice as long). `make test` replays one log per kind of verdict.
test-replay: $(STAMP)
	GNS_REPLAY_ALL=1 $(PY) -m pytest -n 2 -q tests/e2e/test_replay_equals_diagnose_e2e.py $(PYTEST_ARGS)

# The real-engine tier (tests/real): real vLLM (CPU build) and real SGLang under the daemon.
# Engine venvs and tiny models are cached in ~/.cache/gpu-node-supervisor (GNS_REAL_CACHE);
# the first run on a machine installs them (minutes, ~15 GB). One engine at a time: no -n.
test-real: $(STAMP)
	$(PY) tests/real/setup_engines.py $(ENGINES)
	$(PY) -m pytest -q --timeout=900 tests/real $(PYTEST_ARGS)

# Lint, the import contracts (the daemon never imports the TUI) and mypy --strict on the
# modules listed in pyproject.toml: seconds.
check: $(STAMP)
	$(VENV)/bin/ruff check supervisor tui tests bench
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

# The systemd unit as installed (ExecStart pointed at this venv); skipped without systemd.
verify-unit: $(STAMP)
	VENV=$(VENV) bash scripts/verify-unit.sh

bench: $(STAMP)
	$(PY) bench/run.py $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache
