"""The demo: run each seed program unchanged, once on cupynum and once on NumPy, side by side.

The NumPy run executes the very same file with the name `cupynum` bound to numpy, so the only
difference between the two runs is the module behind `np`."""
import os
import subprocess
import sys
import tempfile

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
AS_NUMPY = ("import sys, runpy, numpy; sys.modules['cupynum'] = numpy; sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")


def run(script, args, numpy_backend):
    path = os.path.join(HERE, script)
    cmd = [sys.executable, "-c", AS_NUMPY, path] if numpy_backend else [sys.executable, path]
    out = subprocess.run(cmd + [str(a) for a in args], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def main():
    print("cupynum demo: the seed programs, unchanged, on cupynum and on NumPy\n")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "cupynum.npy"), os.path.join(tmp, "numpy.npy")
        args = (1000, 100)
        print("stencil.py", *args)
        print("  cupynum:", run("stencil.py", args + (a,), False))
        print("  numpy:  ", run("stencil.py", args + (b,), True))
        same = numpy.array_equal(numpy.load(a), numpy.load(b))
        print(f"  grids bitwise equal: {same}\n")
    args = (10_000_000,)
    print("pi.py", *args)
    print("  cupynum:", run("pi.py", args, False))
    print("  numpy:  ", run("pi.py", args, True))
    print("  (cupynum draws from a counter-based Philox stream, NumPy from its own generator:\n"
          "   the estimates agree statistically, not digit for digit)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
