# Two entry points (see README): `make run` opens the app on the bundled sample project,
# `make test` runs the whole test suite. Both create .venv and install the project with its test
# extra on first use (Ray is the optional `cluster` extra: pip install -e ".[cluster]"; its tests skip).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install bench clean package package-check sweep-bench

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 2>&1 | grep -v 'is ignored' || true
	$(BIN)/python -m pip install --quiet -e '.[test]' 2>&1 | grep -v 'is ignored' || true
	$(BIN)/python -c "import torch, PySide6, pyqtgraph, ipapy, epitran, sqlite_utils, pytestqt, hypothesis, engine"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/decipher-gui

# two test processes (pytest-xdist), whole files to each so that a module's shared set-up runs once;
# tests/conftest.py gives every process one torch thread (benchmarks/results/test-durations/suite-xdist.md)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

bench: $(STAMP)
	$(BIN)/decipher bench

# sweep scaling with workers on this machine's cores (docs/notebook/seeds-and-sweeps.md)
sweep-bench: $(STAMP)
	$(BIN)/python -m benchmarks.gpu_sweep --device cpu --workers 1 2 --repeats 3

clean:
	rm -rf $(VENV) build dist *.egg-info

# Packaging (see packaging/README.md); neither target is part of `make test`.
# `make package` builds the one-folder bundle dist/decipher-workbench/ (decipher-gui, decipher);
# `make package-check` runs the built bundle headless (screenshot, an epitran run, a project).
PACKAGE_STAMP := $(VENV)/.installed-package

$(PACKAGE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[package]' 2>&1 | grep -v 'is ignored' || true
	$(BIN)/python -c "import PyInstaller"
	touch $(PACKAGE_STAMP)

package: $(PACKAGE_STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pyinstaller packaging/decipher-workbench.spec --noconfirm \
		--distpath dist --workpath build/pyinstaller

package-check: $(STAMP)
	$(BIN)/python packaging/check_bundle.py dist/decipher-workbench --out build/package-check
