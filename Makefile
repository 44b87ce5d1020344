# gpu-node-supervisor: `make demo` runs the demo, `make test` runs the whole suite.
# Both create .venv on first use; nothing else needs installing by hand.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test check verify-unit bench clean

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
