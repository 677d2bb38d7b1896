# Sourced by demo.sh and test.sh: install, when missing, a C compiler, pkg-config, Python's headers,
# Open MPI and SLEEF (the vectorized math library; Debian/Ubuntu packages), then the optional
# libraries below.
SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
if ! command -v cc >/dev/null || ! command -v pkg-config >/dev/null || ! command -v mpirun >/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq build-essential pkg-config python3-dev libopenmpi-dev openmpi-bin
fi
if ! pkg-config --exists sleef 2>/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libsleef-dev || echo "install-deps: libsleef-dev unavailable; scalar math loops will be used" >&2
fi
# Optional libraries found by meson when present (Debian/Ubuntu packages): Highway's vqsort for
# sort (libhwy-dev: pkg-config libhwy-contrib), FFTW3 for numpy.fft (libfftw3-dev; GPL, see the
# README's licence section), ScaLAPACK for partitioned cholesky/solve (libscalapack-openmpi-dev).
# Each is installed when its pkg-config module is missing; a build without it still works.
_cpn_opt=""
pkg-config --exists libhwy-contrib 2>/dev/null || _cpn_opt="$_cpn_opt libhwy-dev"
pkg-config --exists fftw3 2>/dev/null || _cpn_opt="$_cpn_opt libfftw3-dev"
pkg-config --exists scalapack-openmpi 2>/dev/null || _cpn_opt="$_cpn_opt libscalapack-openmpi-dev"
if [ -n "$_cpn_opt" ]; then
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq $_cpn_opt >/dev/null || echo "install-deps: could not install$_cpn_opt; the build goes on without them" >&2
fi
unset _cpn_opt
