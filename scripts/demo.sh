#!/usr/bin/env bash
# Install what is missing (a C compiler, Python headers, pip packages), build cupynum into the
# current Python environment, then run the seed programs beside NumPy.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
if ! command -v cc >/dev/null || ! command -v pkg-config >/dev/null || ! command -v mpirun >/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq build-essential pkg-config python3-dev libopenmpi-dev openmpi-bin
fi
$PY -m pip install -q "numpy>=2,<3" meson meson-python ninja
$PY -m pip install -q --no-build-isolation .
cd examples
$PY demo.py
