# kgsite — the two commands of the README, and a few helpers.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1:8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install chromium run scaleout test test-postgres lint bench screenshots clean

# Reuses the virtual environment while pyproject.toml is unchanged.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# The CPU build of torch first: an unpinned install would pull gigabytes of CUDA.
	# Where no CPU wheel is at hand, TORCH_INDEX=https://download.pytorch.org/whl/cpu
	$(BIN)/pip install --quiet "torch==2.13.0" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

# The browser tests (tests/e2e) drive Debian's chromium package through Playwright;
# nothing downloads a browser. Skipped when it is there; installed when we are root
# (CI); otherwise the browser tests say they skip and why.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	 elif [ "$$(id -u)" = 0 ]; then \
	   apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; \
	 else echo "no $(CHROMIUM) and not root: install Debian's chromium package to run tests/e2e"; fi

# Set up the embedded default (SQLite in WAL + django-q2 ORM broker), load sample data,
# and serve the site with a background worker on http://$(HOST).
run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	@echo "kgsite on http://$(HOST)  (admin: http://$(HOST)/admin/, API docs: http://$(HOST)/api/docs/)"
	@trap 'kill $$WORKER 2>/dev/null' EXIT INT TERM; \
	 $(BIN)/python manage.py qcluster & WORKER=$$!; \
	 $(BIN)/python manage.py runserver $(HOST)

# The scale-out profile for trials: PostgreSQL + pgvector, Redis, qcluster workers and
# gunicorn, sharing no directory (see README, "Scaling out").
scaleout: install
	.ci/scaleout

# The test suite, on SQLite unless DATABASE_URL names another database.
test: install chromium
	$(BIN)/python -m pytest -q

test-postgres: install chromium
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test $(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install
	$(BIN)/python -m benchmarks

# PNGs of the main pages in docs/screenshots/ (laptop and phone widths), from demo data:
# the by-product of the browser test that checks the pages fit a phone.
screenshots: install chromium
	KGSITE_SCREENSHOTS_DIR=docs/screenshots $(BIN)/python -m pytest -q tests/e2e/test_screenshots.py

clean:
	rm -rf $(VENV) var .pytest_cache
