#!/usr/bin/env bash
# Install what is missing (a C compiler, Python headers, pip packages), build cupynum into the
# current Python environment, then run the seed programs beside NumPy.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
echo "== demo.sh: installing what is missing (Debian packages, then pip packages)"
. scripts/install-deps.sh
$PY -m pip install -q "numpy>=2,<3" scipy-openblas32 meson meson-python ninja
# The build takes a few minutes (more with the CUDA toolkit present): show ninja's progress, one
# line per compiled file, and keep the whole log.
mkdir -p build
log=build/demo-install.log
echo "== demo.sh: building and installing cupynum into $($PY -c 'import sys; print(sys.prefix)') (log: $log)"
$PY -m pip install -v --no-build-isolation . >"$log" 2>&1 </dev/null &
pid=$!
last=""
while kill -0 "$pid" 2>/dev/null; do
    line=$(grep -aoE '\[[0-9]+/[0-9]+\] [A-Za-z]+( [A-Za-z+]+)? [^ ]+' "$log" 2>/dev/null | tail -1 || true)
    if [ -n "$line" ] && [ "$line" != "$last" ]; then
        echo "   $line"
        last=$line
    fi
    sleep 5
done
if ! wait "$pid"; then
    tail -40 "$log"
    echo "demo.sh: the build failed (full log: $log)" >&2
    exit 1
fi
echo "== demo.sh: built; running the seed programs on cupynum and on NumPy"
cd examples
$PY demo.py
