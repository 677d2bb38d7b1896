"""Monte Carlo estimate of pi, as a NumPy user writes it.

Run with cupynum:  python pi.py [N]
The same program runs on NumPy by changing the import line back to `import numpy as np`."""
import sys
import time

import cupynum as np


def estimate_pi(n):
    x = np.random.uniform(size=n)
    y = np.random.uniform(size=n)
    inside = np.sum(x * x + y * y < 1.0)
    return 4.0 * inside / n


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    np.random.seed(42)
    t0 = time.perf_counter()
    pi = estimate_pi(n)
    t1 = time.perf_counter()
    print(f"pi ~= {float(pi):.6f} from {n} points in {t1 - t0:.3f} s")
