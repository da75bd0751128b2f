# kgsite: the two commands of the README (`make run`, `make test`) and a few helpers.
# Each says what it does; nothing is installed outside .venv/ unless a target's name
# asks for it (`make chromium`, `make test-e2e`).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

# Where `make run` serves: HOST=0.0.0.0 listens on every interface (then also set
# DJANGO_ALLOWED_HOSTS to the names you reach it by). A HOST with a colon is the whole
# address, as in HOST=127.0.0.1:9000.
HOST    ?= 127.0.0.1
PORT    ?= 8000
ADDR    := $(if $(findstring :,$(HOST)),$(HOST),$(HOST):$(PORT))
URL     := http://$(subst 0.0.0.0,127.0.0.1,$(ADDR))/
# The web server's and the worker's output while `make run` serves.
RUN_LOG ?= var/log/run.log

.PHONY: install chromium run prod scaleout test test-e2e test-postgres lint docs bench load \
	screenshots clean

# Reuses the virtual environment while pyproject.toml is unchanged.
$(STAMP): pyproject.toml
	@echo "Installing kgsite and its dependencies into $(VENV)/ (a few minutes the first time)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install --quiet --upgrade pip
	@# The CPU build of torch first: an unpinned install would pull gigabytes of CUDA.
	@# Where no CPU wheel is at hand, TORCH_INDEX=https://download.pytorch.org/whl/cpu
	@$(BIN)/pip install --quiet "torch==2.13.0" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	@$(BIN)/pip install --quiet -e ".[dev]"
	@touch $(STAMP)
	@echo "Installed into $(VENV)/"

install: $(STAMP)

# Set up the embedded default (SQLite in WAL + django-q2 ORM broker), load the sample
# data once, and serve the site with a background worker. The terminal ends with the
# address and the demo login; the server's and worker's output go to $(RUN_LOG).
# DEBUG stays off unless asked for: DJANGO_DEBUG=1 make run. Ctrl-C (or SIGTERM) stops
# server and worker together.
run: install
	@echo "Preparing the database (manage.py migrate)"
	@$(BIN)/python manage.py migrate --noinput --verbosity 0
	@mkdir -p $(dir $(RUN_LOG))
	@echo "Loading the sample data once (manage.py seed_demo; details in $(RUN_LOG))"
	@$(BIN)/python manage.py seed_demo 2>>$(RUN_LOG) || { tail -n 20 $(RUN_LOG); exit 1; }
	@echo "Starting the web server and a worker on $(ADDR)"
	@exec $(BIN)/python manage.py serve --workers 1 --log $(RUN_LOG) --ready-url $(URL) \
	  --say "" \
	  --say "kgsite is running at $(URL)" \
	  --say "  Log in as curator / curator-demo (the demo curator)." \
	  --say "  Admin: $(URL)admin/   API docs: $(URL)api/docs/" \
	  --say "  Server and worker output: $(RUN_LOG). Ctrl-C stops both." \
	  -- $(BIN)/python manage.py runserver --noreload --insecure $(ADDR)

# The production profile for a local trial: gunicorn, PostgreSQL, the Redis broker,
# several workers, collected static files (docs/operators/production.md). Plain HTTP on
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
# gunicorn, sharing no directory (docs/operators/production.md, "Scaling out").
scaleout: install
	HOST=$(ADDR) .ci/scaleout

# The test suite, on SQLite unless DATABASE_URL names another database. Without
# Debian's chromium the browser tests are left out with one line; `make test-e2e` (and
# CI) ask for them.
test: install
	$(BIN)/python -m pytest -q

test-postgres: install
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test $(BIN)/python -m pytest -q

# The browser tests (tests/e2e), with the browser they need installed first.
test-e2e: install chromium
	KGSITE_E2E=1 $(BIN)/python -m pytest -q tests/e2e

# The browser tests drive Debian's chromium package through Playwright; nothing
# downloads a browser. Installed here only, and only when asked: as root through apt-get
# (about 350 MB with its libraries), otherwise it says what to install.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if [ -x "$(CHROMIUM)" ]; then echo "Browser for the browser tests: $(CHROMIUM)"; \
	 elif [ "$$(id -u)" = 0 ]; then \
	   echo "Installing Debian's chromium package for the browser tests (apt-get, about 350 MB)"; \
	   apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; \
	 else echo "No $(CHROMIUM): install Debian's chromium package (sudo apt-get install chromium)"; exit 1; fi

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The documentation site (mkdocs.yml, docs/) in var/site/: open var/site/index.html.
# --strict fails on a broken link or a page missing from the navigation.
docs: install
	$(BIN)/mkdocs build --strict --site-dir var/site
	@echo "Documentation built: var/site/index.html"

bench: install
	$(BIN)/python -m benchmarks

# PNGs of the main pages in docs/screenshots/ (laptop and phone widths), from demo data:
# the by-product of the browser test that checks the pages fit a phone.
screenshots: install chromium
	KGSITE_E2E=1 KGSITE_SCREENSHOTS_DIR=docs/screenshots $(BIN)/python -m pytest -q tests/e2e/test_screenshots.py

# Mixed readers and writers against both profiles, side by side (loopback, bounded).
load: install
	$(BIN)/python -m benchmarks.load --profiles dev,prod

clean:
	rm -rf $(VENV) var .pytest_cache
