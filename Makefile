# Two commands do all the set-up on a fresh machine with Python 3.11:
#   make run    API + Celery worker + beat on embedded PostgreSQL and Redis
#   make test   the whole test suite
# DATABASE_URL / CELERY_BROKER_URL point both at external services instead.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
DATA_DIR ?= .data
export DATA_DIR

.PHONY: run test browser lint format bench clean

$(VENV)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m scripts.stack run

# The admin's browser test drives Debian's Chromium; install it when it is missing.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || ( \
	  $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(if $(filter 0,$(shell id -u)),,sudo) \
	  apt-get install -y -qq chromium chromium-driver )

test: $(VENV)/.dev browser
	$(PY) -m scripts.stack test -- $(PYTEST_ARGS)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: $(VENV)/.dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(VENV)/.dev
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) $(DATA_DIR)
