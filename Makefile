# Two commands on a fresh machine: `make demo` and `make test`. Both build .venv from nothing.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	@set -e; py=$$(tools/find-python); echo "using $$py"; \
	if [ ! -x $(PY) ]; then "$$py" -m venv $(VENV); fi; \
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip; \
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[test,studies,fast,sentence]"; \
	$(PY) -m compileall -q embias; \
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/embias fit religion

test: $(STAMP) chromium
	$(PY) -m pytest -q -n 2 --dist loadgroup

# The audit report's browser test (tests/test_audit_browser.py) drives headless Chromium:
# Debian's `chromium` is installed when it is missing and that is possible (root, apt-get);
# otherwise the test is skipped and says why. Never fatal.
.PHONY: chromium
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium (Debian) for the audit report's browser test"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 \
	    || { apt-get update -qq >/dev/null 2>&1 \
	         && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; } \
	    || echo "could not install chromium: the browser test will be skipped"; \
	  else \
	    echo "chromium not found (apt-get install chromium): the browser test will be skipped"; \
	  fi; }

bench: $(STAMP)
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

lint: $(STAMP)
	$(VENV)/bin/ruff check embias tests benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache

# Rewrite README.md's command-generated tables (`embias weat all`, `embias simulate weat
# --published`) from the code's output; tests/test_readme.py fails while they differ.
.PHONY: readme
readme: $(STAMP)
	$(PY) tests/test_readme.py --write

# Re-execute every notebook and write its fresh outputs (tests/test_notebooks.py fails while
# a committed output differs from what the code prints today).
.PHONY: notebooks
notebooks: $(STAMP)
	$(PY) tests/test_notebooks.py --write notebooks/*.ipynb
