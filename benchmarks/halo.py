"""Halo traffic of the seed stencil under weak scaling.

    mpirun -np P python -m benchmarks.halo [N]

Each rank owns an N x N block of the grid (the global grid is N*a x N*b with a*b = P, a >= b);
prints, per rank, the bytes sent per iteration, the tile's perimeter in bytes, and the time per
iteration."""
import sys
import time

import cupynum as np


def run(n_block=500, iterations=10):
    info = np.runtime_info()
    p = info["ranks"]
    a = next(x for x in range(int(p ** 0.5), 0, -1) if p % x == 0)
    rows, cols = n_block * (p // a), n_block * a
    grid = np.zeros((rows + 2, cols + 2))
    grid[0, :] = 40.0
    center, north, south = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[2:, 1:-1]
    east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]

    def step(k):
        for _ in range(k):
            center[:] = 0.2 * (center + north + east + west + south)
        np.sync()

    step(2)
    np.reset_stats()
    t0 = time.perf_counter()
    step(iterations)
    dt = (time.perf_counter() - t0) / iterations
    s = np.runtime_stats()
    t = np._core._tiling(grid)
    ext = [h - l for l, h in zip(t["lo"], t["hi"])]
    perimeter = 2 * sum(ext) * grid.itemsize
    print(f"ranks={p} rank={info['rank']} grid={rows + 2}x{cols + 2} tile={ext[0]}x{ext[1]} "
          f"bytes/iter={s['bytes_sent'] / iterations:.0f} perimeter_bytes={perimeter} "
          f"messages/iter={s['messages_sent'] / iterations:.1f} plans_built={s['plans_cached']} "
          f"s/iter={dt:.4f}", flush=True)


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
