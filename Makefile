# One command to set up and launch, one to set up and test. Both create and reuse .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: bytecode run test lint eval bench translations package clean test-matrix test-e2e screenshots

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The modules compiled to bytecode ahead of time, as a wheel or the bundle ships them: where the environment says
# not to write bytecode (PYTHONDONTWRITEBYTECODE), every start compiled every module again, 60-90 ms of a command.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q knit_desktop

run: $(STAMP) bytecode
	$(BIN)/knit-desktop --demo $(ARGS)

test: $(STAMP) bytecode
	$(BIN)/ruff check knit_desktop tests packaging
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not e2e"

# The window under a real X server (Xvfb + openbox + trayer), driven by xdotool, in both languages; screenshots of
# each step go to KNIT_E2E_SCREENSHOTS (default: the test's temp dir). Fails, not skips, when a tool is missing.
test-e2e: $(STAMP)
	KNIT_E2E_REQUIRED=1 $(BIN)/python -m pytest -m e2e tests/e2e -s

# The README's screenshots (docs/screenshots), rendered offscreen by the tests that take them, in both languages.
# SCALE=2 renders them at scale factor 2 and SHOTS=DIR writes them elsewhere (to look at, not for the README).
SCREENSHOT_TESTS := tests/test_window.py tests/test_media_window.py tests/test_sticky_notes.py tests/test_history_window.py
screenshots: $(STAMP)
	KNIT_UPDATE_SCREENSHOTS=1 QT_SCALE_FACTOR=$(or $(SCALE),1) $(if $(SHOTS),KNIT_SCREENSHOTS_DIR=$(SHOTS)) \
		$(BIN)/python -m pytest -q $(SCREENSHOT_TESTS) -k "screenshot or settings_dialog_applies"

# The window tests on the lowest PySide6 that pyproject.toml allows (in .venv-qt-low) and on the one .venv resolved.
QT_LOW = $(shell sed -n 's/.*"PySide6-Essentials>=\([0-9.]*\).*/\1/p' pyproject.toml)
WINDOW_TESTS := tests/test_window.py tests/test_actions.py tests/test_media_window.py tests/test_sticky_notes.py

.venv-qt-low/.installed: pyproject.toml
	$(PYTHON) -m venv .venv-qt-low
	.venv-qt-low/bin/pip install --quiet --upgrade pip
	.venv-qt-low/bin/pip install --quiet -e '.[test]' 'PySide6-Essentials==$(QT_LOW)' 'PySide6-Addons==$(QT_LOW)'
	touch $@

test-matrix: $(STAMP) .venv-qt-low/.installed
	.venv-qt-low/bin/python -m pytest $(WINDOW_TESTS)
	$(BIN)/python -m pytest $(WINDOW_TESTS)

lint: $(STAMP)
	$(BIN)/ruff check knit_desktop tests packaging

eval: $(STAMP)
	$(BIN)/python -m pytest tests/eval -s

bench: $(STAMP) bytecode
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
	rm -rf $(VENV) .venv-qt-low build dist *.egg-info
