#!/usr/bin/env bash
# Build cupynum in place (editable install) and run every test: the C unit tests of the runtime
# (no Python involved) and the pytest suite, which compares every result with NumPy's.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
if ! command -v cc >/dev/null || ! command -v pkg-config >/dev/null; then
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq build-essential pkg-config python3-dev
fi
$PY -m pip install -q "numpy>=2,<3" meson meson-python ninja pytest
$PY -m pip install -q --no-build-isolation -e .
rm -rf build/ctest
meson setup build/ctest -Dcuda=disabled >/dev/null
meson test -C build/ctest --print-errorlogs
$PY -m pytest -q tests "$@"
# The NumPy fallback on 3 ranks: every rank gathers, computes and compares.
if command -v mpirun >/dev/null; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun -np 3 --oversubscribe --mca mpi_yield_when_idle 1 \
        "$(command -v "$PY")" -m pytest -q -p no:cacheprovider --color=no tests/test_fallback.py
fi
