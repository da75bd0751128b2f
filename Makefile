# kgsite — the two commands of the README, and a few helpers.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1:8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install chromium run prod scaleout test test-postgres lint bench load screenshots clean

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
# and serve the site with a background worker on http://$(HOST). DEBUG stays off unless
# asked for: DJANGO_DEBUG=1 make run. SIGTERM or Ctrl-C stops server and worker together.
run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	@echo "kgsite on http://$(HOST)  (admin: http://$(HOST)/admin/, API docs: http://$(HOST)/api/docs/)"
	exec $(BIN)/python manage.py serve --workers 1 -- \
	  $(BIN)/python manage.py runserver --noreload --insecure $(HOST)

# The production profile for a local trial: gunicorn, PostgreSQL, the Redis broker,
# several workers, collected static files (see README "Production"). Plain HTTP on
# loopback, so KGSITE_SSL_REDIRECT=0; behind a TLS proxy leave it on.
PROD_HOST     ?= 127.0.0.1:8001
PROD_DB       ?= postgres://postgres@127.0.0.1:5432/kgsite
PROD_REDIS    ?= redis://127.0.0.1:6379/0
PROD_WEB      ?= 2
PROD_THREADS  ?= 4
PROD_QWORKERS ?= 2
prod: export DJANGO_SETTINGS_MODULE := kgsite.settings.production
prod: export DATABASE_URL := $(PROD_DB)
prod: export REDIS_URL := $(PROD_REDIS)
prod: export KGSITE_SSL_REDIRECT ?= 0
prod: export KGSITE_Q_WORKERS ?= $(PROD_QWORKERS)
prod: export KGSITE_INGEST_CLUSTER ?= kgsite-ingest
prod: export DJANGO_SECRET_KEY ?= $(shell $(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))")
prod: install
	-createdb -h 127.0.0.1 -U postgres $(lastword $(subst /, ,$(PROD_DB))) 2>/dev/null
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(BIN)/python manage.py seed_demo
	@echo "kgsite (production profile) on http://$(PROD_HOST)"
	exec $(BIN)/python manage.py serve --workers 1 --ingest-workers 1 -- \
	  $(BIN)/gunicorn kgsite.wsgi --bind $(PROD_HOST) --workers $(PROD_WEB) \
	  --threads $(PROD_THREADS) --worker-class gthread --timeout 60 --access-logfile -

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
# Mixed readers and writers against both profiles, side by side (loopback, bounded).
load: install
	$(BIN)/python -m benchmarks.load --profiles dev,prod

clean:
	rm -rf $(VENV) var .pytest_cache
