# Sourced by demo.sh and test.sh: install, when missing, a C compiler, pkg-config, Python's headers,
# Open MPI, SLEEF (the vectorized math library) and FFTW3 (Debian/Ubuntu packages).
SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
if ! command -v cc >/dev/null || ! command -v pkg-config >/dev/null || ! command -v mpirun >/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq build-essential pkg-config python3-dev libopenmpi-dev openmpi-bin
fi
if ! pkg-config --exists sleef 2>/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libsleef-dev || echo "install-deps: libsleef-dev unavailable; scalar math loops will be used" >&2
fi
# FFTW3 for numpy.fft (optional; GPL: a build that finds it is GPL, README "Licence"; without it
# numpy.fft falls back to NumPy).  Skip with CUPYNUM_NO_FFTW=1 for a BSD-only build.
if [ -z "${CUPYNUM_NO_FFTW:-}" ] && ! pkg-config --exists fftw3 fftw3f 2>/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libfftw3-dev || echo "install-deps: libfftw3-dev unavailable; numpy.fft will fall back to NumPy" >&2
fi
