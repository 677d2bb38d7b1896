# Sourced by demo.sh and test.sh: install, when missing, a C compiler, pkg-config, Python's headers,
# Open MPI and SLEEF (the vectorized math library; Debian/Ubuntu packages).
SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
if ! command -v cc >/dev/null || ! command -v pkg-config >/dev/null || ! command -v mpirun >/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq build-essential pkg-config python3-dev libopenmpi-dev openmpi-bin
fi
if ! pkg-config --exists sleef 2>/dev/null; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libsleef-dev || echo "install-deps: libsleef-dev unavailable; scalar math loops will be used" >&2
fi
