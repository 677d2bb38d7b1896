#!/usr/bin/env bash
# gpu_check.sh: the CUDA backend's check on a machine with a GPU (issue #8), in under 8 minutes,
# without a package registry: Python, NumPy, meson, ninja (and CuPy, pytest where present) must
# already be installed.
#
#   1. build with meson -Dcuda=enabled -Dmpi=disabled + ninja (no pip), stage the package;
#   2. the device tests on the GPU backend: the test files marked `gpu` (pyproject.toml: the
#      tests/test_device*.py files, test_fusion.py, test_fft_device.py, test_linalg_device.py
#      (cuSOLVER) and the device selection test of test_indexing_adv.py; one rank: the device
#      box path is not taken,
#      the NCCL transport needs an MPI build and two GPUs);
#   3. benchmarks (benchmarks/gpu_bench.py): the device copy bandwidth, then stencil (N=16384),
#      pi (10^9 points) and Black-Scholes on cupynum-GPU, CuPy and NumPy, with the achieved
#      bandwidth of each against the copy bandwidth measured in this run; numpy.linalg's solve,
#      cholesky, svd and eigh of a 2000x2000 float64 matrix (cuSOLVER on the GPU) beside CuPy and
#      NumPy, with each result's relative residual.
# Logs go to $OUT when it is set (else build/gpu-check/); TEST_TIMEOUT (240 s) and BENCH_TIMEOUT
# (120 s per benchmark) bound a short lease.  A dry run without a GPU:
#   CHECK_DEVICE=sim SMALL=1 benchmarks/gpu_check.sh   (simulated device, small sizes)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
LOG=${OUT:-$ROOT/build/gpu-check}
mkdir -p "$LOG"
exec > >(tee "$LOG/gpu_check.log") 2>&1
START=$(date +%s)
elapsed() { echo "[$(( $(date +%s) - START )) s] $*"; }

elapsed "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
$PY -c "import sys, numpy; print('python', sys.version.split()[0], 'numpy', numpy.__version__)"
$PY -c "import cupy; print('cupy', cupy.__version__)" 2>/dev/null || echo "cupy: not installed (its columns are skipped)"

# ---- 1. build ------------------------------------------------------------------------------
BUILD=$ROOT/build/gpu
elapsed "build (meson -Dcuda=enabled -Dmpi=disabled, ninja)"
if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" -Dcuda=enabled -Dmpi=disabled -Dbuildtype=release >"$LOG/meson-setup.log" 2>&1 \
        || { tail -30 "$LOG/meson-setup.log"; echo "BUILD FAILED"; exit 1; }
fi
ninja -C "$BUILD" >"$LOG/ninja.log" 2>&1 || { tail -40 "$LOG/ninja.log"; echo "BUILD FAILED"; exit 1; }
STAGE=$BUILD/stage
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -r "$ROOT/cupynum" "$STAGE/cupynum"
cp "$BUILD"/_core*.so "$STAGE/cupynum/"
export PYTHONPATH=$STAGE${PYTHONPATH:+:$PYTHONPATH}
export CUPYNUM_CACHE_DIR=$BUILD/kernel-cache
export CUPYNUM_DEVICE=${CHECK_DEVICE:-gpu}
cd "$STAGE"   # so that `import cupynum` finds the staged package, not the source tree
$PY -c "import cupynum; print(cupynum.__file__, cupynum.runtime_info())" || { echo "IMPORT ON THE GPU FAILED"; exit 1; }

# ---- 2. device tests -------------------------------------------------------------------------
elapsed "device tests (CUPYNUM_DEVICE=$CUPYNUM_DEVICE)"
if $PY -c "import pytest" 2>/dev/null; then
    XDIST=""   # pytest-xdist, where present: 8 processes on the one GPU (about 35 s on an H200)
    $PY -c "import xdist" 2>/dev/null && XDIST="-n 8"
    (timeout ${TEST_TIMEOUT:-240} $PY -m pytest -q -p no:cacheprovider $XDIST -rf --tb=short --maxfail=20 --rootdir "$ROOT/tests" \
        -c "$ROOT/pyproject.toml" -m gpu "$ROOT/tests" >"$LOG/device-tests.log" 2>&1; \
     echo "pytest exit status $?"; grep -E "^(FAILED|ERROR)" "$LOG/device-tests.log" | head -40; tail -3 "$LOG/device-tests.log")
else
    echo "pytest not installed: device tests skipped"
fi

# ---- 3. benchmarks -----------------------------------------------------------------------------
bench() {   # module program n iters repeat
    timeout ${BENCH_TIMEOUT:-120} $PY "$ROOT/benchmarks/gpu_bench.py" "$@" 2>"$LOG/bench-$1-$2.err" \
        || { echo "{\"module\": \"$1\", \"program\": \"$2\", \"error\": \"see bench-$1-$2.err\"}"; tail -3 "$LOG/bench-$1-$2.err"; }
}
elapsed "benchmarks"
S() { if [ -n "${SMALL:-}" ]; then echo "$2"; else echo "$1"; fi; }   # full size, dry-run size
: >"$LOG/bench.jsonl"
MODS="cupynum"
$PY -c "import cupy" 2>/dev/null && MODS="$MODS cupy"
for m in $MODS; do bench "$m" copy $(S 268435456 262144) 20 3 | tee -a "$LOG/bench.jsonl"; done
for m in $MODS; do bench "$m" stencil $(S 16384 128) 20 2 | tee -a "$LOG/bench.jsonl"; done
bench numpy stencil $(S 16384 128) 2 1 | tee -a "$LOG/bench.jsonl"
for m in $MODS; do bench "$m" pi $(S 1000000000 1000000) 1 3 | tee -a "$LOG/bench.jsonl"; done
bench numpy pi $(S 100000000 100000) 1 1 | tee -a "$LOG/bench.jsonl"
for m in $MODS; do bench "$m" blackscholes $(S 100000000 100000) 5 2 | tee -a "$LOG/bench.jsonl"; done
bench numpy blackscholes $(S 10000000 10000) 1 1 | tee -a "$LOG/bench.jsonl"
for p in solve cholesky svd eigh; do
    for m in $MODS numpy; do bench "$m" $p $(S 2000 64) 1 3 | tee -a "$LOG/bench.jsonl"; done
done

elapsed "summary"
$PY - "$LOG/bench.jsonl" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
ok = [r for r in rows if "seconds" in r]
copy = max((r["GBps"] for r in ok if r["program"] == "copy"), default=None)
print(f"device copy bandwidth: {copy:.0f} GB/s" if copy else "device copy bandwidth: not measured")
for prog in ("stencil", "pi", "blackscholes"):
    for r in [r for r in rows if r.get("program") == prog]:
        if "seconds" not in r:
            print(f"{prog:13s} {r['module']:8s} FAILED ({r.get('error')})")
            continue
        per = r["seconds"] / r["iters"]
        frac = f"{100 * r['GBps'] / copy:5.1f}% of copy" if copy else ""
        print(f"{prog:13s} {r['module']:8s} n={r['n']:.3g} {per * 1e3:9.2f} ms/iter {r['GBps']:8.1f} GB/s {frac}")
st = {r["module"]: r for r in ok if r["program"] == "stencil"}
pi = {r["module"]: r for r in ok if r["program"] == "pi"}
if "cupynum" in st and copy:
    print(f"target stencil >= 70% of copy bandwidth: {'MET' if st['cupynum']['GBps'] >= 0.7 * copy else 'NOT MET'}")
if "cupynum" in st and "cupy" in st:
    print(f"target stencil faster than CuPy: {'MET' if st['cupynum']['seconds'] < st['cupy']['seconds'] else 'NOT MET'}")
for prog in ("solve", "cholesky", "svd", "eigh"):
    by = {r["module"]: r for r in rows if r.get("program") == prog}
    for mod, r in by.items():
        if "seconds" not in r:
            print(f"{prog:13s} {mod:8s} FAILED ({r.get('error')})")
            continue
        vs = by.get("numpy", {}).get("seconds")
        ratio = f"{vs / r['seconds']:6.2f}x NumPy" if vs and mod != "numpy" else ""
        print(f"{prog:13s} {mod:8s} n={r['n']} {r['seconds'] * 1e3:9.2f} ms  residual {r['value']:.1e} {ratio}")
if "cupynum" in pi:
    print(f"target pi(1e9) < 30 ms: {'MET' if pi['cupynum']['seconds'] < 0.030 else 'NOT MET'} ({pi['cupynum']['seconds'] * 1e3:.1f} ms)")
PYEOF
elapsed "done"
