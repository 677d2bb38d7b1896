#!/usr/bin/env bash
# Install what is missing (a C compiler, Python headers, pip packages), build cupynum into the
# current Python environment, then run the seed programs beside NumPy.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
. scripts/install-deps.sh
$PY -m pip install -q "numpy>=2,<3" scipy-openblas32 meson meson-python ninja
$PY -m pip install -q --no-build-isolation .
cd examples
$PY demo.py
