# One command to set up and launch, one to set up and test. Both create and reuse .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint eval bench translations package clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/knit-desktop --demo $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check knit_desktop tests packaging
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check knit_desktop tests packaging

eval: $(STAMP)
	$(BIN)/python -m pytest tests/eval -s

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/ranking.py

# After changing user-visible strings: refresh the .ts sources, translate in them (or pyside6-linguist), rebuild .qm.
translations: $(STAMP)
	$(BIN)/pyside6-lupdate -locations none -no-obsolete knit_desktop/ui/*.py -ts resources/i18n/knit_zh_CN.ts resources/i18n/knit_en.ts
	$(BIN)/pyside6-lrelease resources/i18n/knit_zh_CN.ts -qm resources/i18n/knit_zh_CN.qm
	$(BIN)/pyside6-lrelease resources/i18n/knit_en.ts -qm resources/i18n/knit_en.qm

# The Linux bundle (PyInstaller onedir + .tar.gz in dist/), then its smoke test.
package: $(STAMP)
	$(BIN)/pip install --quiet -e '.[package]'
	$(BIN)/python packaging/build.py

clean:
	rm -rf $(VENV) build dist *.egg-info
