#!/usr/bin/env python3
"""Thin driver for environments without meson-python: runs the one meson build (meson.build)
in place and puts the extension next to the package sources, so `import cupynum` works from
this directory.  It lists no sources of its own.

    python setup.py [build_ext --inplace] [-Dcuda=disabled ...]

Extra -D options are passed to `meson setup`.  Needs meson, ninja, a C compiler and NumPy 2."""
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "build", "inplace")


def meson():
    """meson under this very Python, so the extension is built for it."""
    try:
        import mesonbuild  # noqa: F401
        return [sys.executable, "-m", "mesonbuild.mesonmain"]
    except ImportError:
        exe = shutil.which("meson")
        if not exe:
            sys.exit("setup.py: meson is required (pip install meson ninja)")
        return [exe]


def main(argv):
    options = [a for a in argv if a.startswith("-D")]
    if not os.path.exists(os.path.join(BUILD, "build.ninja")):
        subprocess.check_call(meson() + ["setup", BUILD, "--buildtype=release"] + options, cwd=HERE)
    elif options:
        subprocess.check_call(meson() + ["configure", BUILD] + options, cwd=HERE)
    subprocess.check_call(meson() + ["compile", "-C", BUILD], cwd=HERE)
    built = glob.glob(os.path.join(BUILD, "_core*.so")) + glob.glob(os.path.join(BUILD, "_core*.pyd"))
    if not built:
        sys.exit("setup.py: the build produced no extension module")
    for path in built:
        shutil.copy2(path, os.path.join(HERE, "cupynum", os.path.basename(path)))
        print(f"setup.py: built {os.path.relpath(os.path.join('cupynum', os.path.basename(path)), HERE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
