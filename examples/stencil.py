"""Jacobi iteration of the 5-point stencil on aliasing views, as a NumPy user writes it.

`center`, `north`, `east`, `west` and `south` are views of one grid; `center[:] = average`
writes through one view what the others read on the next iteration.

Run with cupynum:  python stencil.py [N] [iterations]
The same program runs on NumPy by changing the import line back to `import numpy as np`."""
import sys
import time

import cupynum as np


def initialize(n):
    grid = np.zeros((n + 2, n + 2))
    grid[:, 0] = -273.15
    grid[:, -1] = -273.15
    grid[-1, :] = -273.15
    grid[0, :] = 40.0
    return grid


def run(grid, iterations):
    center = grid[1:-1, 1:-1]
    north = grid[0:-2, 1:-1]
    east = grid[1:-1, 2:]
    west = grid[1:-1, 0:-2]
    south = grid[2:, 1:-1]
    for _ in range(iterations):
        average = center + north + east + west + south
        average = 0.2 * average
        center[:] = average
    return grid


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    t0 = time.perf_counter()
    grid = run(initialize(n), iterations)
    mean = float(np.mean(grid[1:-1, 1:-1]))
    t1 = time.perf_counter()
    print(f"stencil {n}x{n}, {iterations} iterations: mean interior value {mean!r} "
          f"in {t1 - t0:.3f} s")
    out = sys.argv[3] if len(sys.argv) > 3 else None
    if out:
        import numpy
        numpy.save(out, numpy.asarray(grid))
