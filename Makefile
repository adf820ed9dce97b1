# Two commands do all the set-up: `make run` and `make test`. `make test` leaves out the slow whole-system tests
# (the real bot process, crashes): `make test-slow` runs those alone, `make test-all` everything (as CI does).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-slow test-all lint bench clean

$(STAMP): pyproject.toml packages/discord-offline/pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e packages/discord-offline
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(PY) bot.py

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -m "not slow" -n auto

test-slow: $(STAMP)
	$(PY) -m pytest -m slow

test-all: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -m "not slow" -n auto
	$(PY) -m pytest -m slow

bench: $(STAMP)
	$(PY) bench/engine.py
	$(PY) bench/ai_strength.py

clean:
	rm -rf $(VENV)
