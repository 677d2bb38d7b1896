#!/usr/bin/env bash
# Build cupynum in place (editable install) and run every test: the C unit tests of the runtime
# (no Python involved) and the pytest suite, which compares every result with NumPy's.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
. scripts/install-deps.sh
$PY -m pip install -q "numpy>=2,<3" scipy-openblas32 meson meson-python ninja pytest mpi4py
# One build, reused: cupynum is installed into $PY's environment as an editable install (pip
# install -e: the import runs the build in build/editable, which rebuilds what changed), and the C
# unit tests run in that same build directory.
echo "== installing cupynum into $($PY -c 'import sys; print(sys.prefix)') as an editable install (build/editable)"
$PY -m pip install -q --no-build-isolation -Cbuild-dir=build/editable -e .
# Products must run on BLAS (scipy-openblas32 above, found by meson): say which, fail without one.
$PY -c "import cupynum, sys; b = cupynum.runtime_info()['blas']; print('BLAS:', b); sys.exit(b == 'none')"
# The C unit tests of that build; where the CUDA toolkit is present it is the CUDA-enabled
# configuration (no GPU needed: the backend builds, the registry lists it, and every op's
# generated device code compiles through NVRTC and nvcc -ptx).
echo "== C unit tests (build/editable)"
meson test -C build/editable --print-errorlogs
# A build with CUDA is a different build from the CPU-only one users without the toolkit get:
# then build that configuration too (once) and run its C tests.
if $PY -c "import cupynum, sys; sys.exit(not cupynum.runtime_info()['cuda_built'])"; then
    echo "== C unit tests of the CPU-only configuration (build/ctest-cpu, -Dcuda=disabled)"
    [ -f build/ctest-cpu/build.ninja ] || meson setup build/ctest-cpu -Dcuda=disabled >/dev/null
    meson test -C build/ctest-cpu --print-errorlogs
else
    echo "CUDA toolkit not found: the -Dcuda=enabled configuration was not tested" >&2
fi
$PY -m pytest -q tests "$@"
# The device paths of the executor on the simulated device (host memory standing in for GPU
# memory): coherence of host and device copies, fused runs and single ops on device buffers,
# the host fallback of what the device lacks, device parity, floating-point reports through
# device report words, two-output ops and ldexp: the test files marked `device` (pyproject.toml).
CUPYNUM_DEVICE=sim $PY -m pytest -q -p no:cacheprovider -m device tests
# The same suite distributed: 1, 2, 3 and 4 ranks, every array partitioned (CUPYNUM_MIN_TILE=1),
# every rank comparing its results with NumPy.
if command -v mpirun >/dev/null; then
    # CUPYNUM_OUTPUT=all: every rank's pytest report reaches the log (by default only rank 0 prints).
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUPYNUM_MIN_TILE=1 CUPYNUM_OUTPUT=all
    mkdir -p build
    for n in 1 2 3 4; do
        log="build/tests-mpi-$n.log"
        echo "== tests on $n MPI rank(s) (log: $log)"
        if ! mpirun -np "$n" --oversubscribe --mca mpi_yield_when_idle 1 -x CUPYNUM_MIN_TILE -x CUPYNUM_OUTPUT \
                "$(command -v "$PY")" -m pytest -q -p no:cacheprovider --color=no tests >"$log" 2>&1; then
            grep -E "FAILED|Error|passed|failed" "$log" | sort | uniq | tail -40
            exit 1
        fi
        grep -E "[0-9]+ passed" "$log" | sort | uniq -c
    done
    # The device paths under distribution (the box path on device buffers with the device
    # transport, the gather path executing on the device): 3 ranks on the simulated device, the
    # test files marked `mpi_device`.
    log="build/tests-mpi-sim.log"
    echo "== device paths on 3 MPI ranks, simulated device (log: $log)"
    if ! CUPYNUM_DEVICE=sim mpirun -np 3 --oversubscribe --mca mpi_yield_when_idle 1 -x CUPYNUM_MIN_TILE -x CUPYNUM_OUTPUT \
            -x CUPYNUM_DEVICE "$(command -v "$PY")" -m pytest -q -p no:cacheprovider --color=no \
            -m mpi_device tests >"$log" 2>&1; then
        grep -E "FAILED|Error|passed|failed" "$log" | sort | uniq | tail -40
        exit 1
    fi
    grep -E "[0-9]+ passed" "$log" | sort | uniq -c
else
    echo "mpirun not found: the distributed runs were not done" >&2
    exit 1
fi
# The differential fuzzer (tests/fuzz.py): seeded random NumPy programs on NumPy and on cupynum,
# one process and 3 ranks with every array partitioned; it fails on a crash, a hang, a wrong
# answer or an exception difference that is not in its documented known list.
echo "== differential fuzzer: NumPy against cupynum, 1 process and 3 ranks"
$PY -m tests.fuzz --programs 1000 --seed 1
$PY -m tests.fuzz --programs 300 --seed 2 --ranks 3
