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
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/embias fit religion

test: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadgroup

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
	MPLBACKEND=Agg $(PY) tests/test_notebooks.py --write notebooks/*.ipynb
