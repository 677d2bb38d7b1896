"""The demo: run each seed program unchanged, once on cupynum and once on NumPy, side by side.

The NumPy run executes the very same file with the name `cupynum` bound to numpy, so the only
difference between the two runs is the module behind `np`."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = ["mpirun", "-np", "2", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
AS_NUMPY = ("import sys, runpy, numpy; sys.modules['cupynum'] = numpy; sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")


def run(script, args, numpy_backend, ranks=1):
    path = os.path.join(HERE, script)
    cmd = [sys.executable, "-c", AS_NUMPY, path] if numpy_backend else [sys.executable, path]
    if ranks > 1:
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        out = subprocess.run(MPIRUN + cmd + [str(a) for a in args], check=True, capture_output=True,
                             text=True, env=env)
        lines = sorted(set(out.stdout.strip().splitlines()), key=len)
        return " | ".join(lines) + f"   [{ranks} ranks]"
    out = subprocess.run(cmd + [str(a) for a in args], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def value(line):
    """The printed result of a run (what must agree), without its timing."""
    return line.split(" in ")[0]


def main():
    print("cupynum demo: the seed programs, unchanged, on cupynum and on NumPy\n")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "cupynum.npy"), os.path.join(tmp, "numpy.npy")
        args = (1000, 100)
        print("stencil.py", *args)
        c1 = run("stencil.py", args + (a,), False)
        n1 = run("stencil.py", args + (b,), True)
        print("  cupynum:", c1)
        print("  numpy:  ", n1)
        same = numpy.array_equal(numpy.load(a), numpy.load(b))
        print(f"  grids bitwise equal: {same}")
        if shutil.which("mpirun"):
            c2 = run("stencil.py", args, False, ranks=2)
            print("  cupynum:", c2)
            lines2 = c2.split("   [")[0].split(" | ")
            same2 = {value(line) for line in lines2} == {value(c1)}
            print(f"  2 ranks print the same result as 1 rank: {same2}")
            same = same and same2
        print()
    args = (10_000_000,)
    print("pi.py", *args)
    print("  cupynum:", run("pi.py", args, False))
    if shutil.which("mpirun"):
        print("  cupynum:", run("pi.py", args, False, ranks=2))
    print("  numpy:  ", run("pi.py", args, True))
    print("  (cupynum draws from a counter-based Philox stream, the same on any number of ranks;\n"
          "   NumPy from its own generator: the estimates agree statistically, not digit for digit)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
