# Two commands: `make run` (the product) and `make test` (the suite). Everything else is a helper.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: install run test test-slow test-llm test-fast lint check-deploy format bench screenshots dbstop clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@# torch first, pinned: an unpinned torch resolves to a multi-GB CUDA build (docs/decisions/0004).
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev]"
	@touch $@

.env:
	@printf 'DEBUG=1\nSECRET_KEY=%s\n' "$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')" > .env
	@echo "Wrote .env (development settings; see .env.example for every variable)."

run: install .env
	$(PY) manage.py up

test: install
	@$(PY) -m pytest -q -m "not slow" $(PYTEST_ARGS); rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

# Reuses one embedded test database between runs (faster local loop).
test-fast: install
	$(PY) -m pytest -q -m "not slow" --reuse-pg --reuse-db $(PYTEST_ARGS)

test-slow: install
	@$(PY) -m pytest -q -m slow $(PYTEST_ARGS); rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "no slow tests collected: failing"; exit 1; fi; exit $$rc

# The real-model check (issue 19), not part of `make test`: builds llama.cpp's OpenAI-compatible server
# and assembles a small local model (sha256-verified) once, in ~/.cache/xorventa/llm, then replays the
# scenario files with the model as extractor, answerer and both. One mode over every file takes
# 1.5-2 hours on two cores (docs/knowledge.md).
# Narrow it with LLM_ARGS, e.g. LLM_ARGS="--modes llm/llm tests/scenarios/spoke_and_chain.json".
test-llm: install .env
	XORVENTA_LAB=1 $(PY) manage.py migrate_schemas --noinput -v 0
	XORVENTA_LAB=1 $(PY) manage.py llm_check $(LLM_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	@# The layers (pyproject.toml [tool.importlinter]) and no import of another module's _private name.
	$(VENV)/bin/lint-imports --no-cache
	$(PY) tools/private_imports.py
	@# Every import inside a function says why it cannot be at the top (heavy library, ready(), a circle).
	$(PY) tools/function_imports.py
	@# The container file (not built here: base images cannot be pulled); hadolint's binary from PyPI.
	$(VENV)/bin/hadolint Dockerfile
	@# mypy's Django plugin imports the settings: give it a development environment (no secret needed).
	DEBUG=1 $(VENV)/bin/mypy apps xorventa lab
	@$(MAKE) --no-print-directory check-deploy

# Django's deployment checks with production settings: DEBUG off, a random secret, real host names,
# HTTPS-only cookies, HSTS and the SSL redirect. Nothing is inherited from the shell (env -i) and every
# security setting is named, so a development .env (DEBUG=1) cannot make it pass. Any warning fails.
check-deploy: install
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	env -i PATH="$$PATH" HOME="$$HOME" LANG=C.UTF-8 XORVENTA_DATA_DIR="$$tmp" \
	  DEBUG=0 SECRET_KEY="$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(64))')" \
	  ALLOWED_HOSTS=.xorventa.example,xorventa.example XORVENTA_BASE_DOMAIN=xorventa.example \
	  XORVENTA_SITE_URL=https://xorventa.example \
	  CSRF_TRUSTED_ORIGINS=https://xorventa.example,https://*.xorventa.example \
	  SESSION_COOKIE_SECURE=1 CSRF_COOKIE_SECURE=1 SECURE_SSL_REDIRECT=1 SECURE_HSTS_SECONDS=31536000 \
	  $(PY) manage.py check --deploy --fail-level WARNING

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install .env
	$(PY) manage.py bench --quick

screenshots: install .env
	$(PY) manage.py screenshots

dbstop:
	-$(PY) manage.py dbserver stop

clean: dbstop
	rm -rf $(VENV) .xorventa
