"""Peak memory of np.save / np.load of a large .npy under mpirun (issue #20's target: no rank
holds more than its tile plus 64 MiB).

    mpirun -np 2 python -m benchmarks.files_memory [GIB] [PATH]

Makes a float64 arange of GIB gibibytes (default 2), partitioned over the ranks; saves it to PATH
(default /tmp/cupynum_files_memory.npy), frees it, loads it back and checks a sample of elements
and the file (its header read by numpy.lib.format, the sampled elements by pread). Each rank measures its peak resident
set in each step (VmHWM of /proc/self/status, reset with /proc/self/clear_refs before the step)
above its resident set before the first array was made, and prints it beside its tile's bytes
plus 64 MiB.  Heavy (GIB of disk, GIB / ranks of memory per rank): not part of the test suite."""
import gc
import os
import resource
import sys

import numpy

import cupynum as np

MIB = 1 << 20


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def _reset_peak():
    """VmHWM := VmRSS (Linux: writing 5 to clear_refs resets the peak resident set)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _maxrss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _step(fn, base):
    """fn()'s result and the peak resident set above `base` (the process's before any array)
    while it ran."""
    gc.collect()
    np.sync()
    np._core.barrier()
    _reset_peak()
    r = fn()
    np.sync()
    return r, _status("VmHWM") - base


def main(gib=2.0, path="/tmp/cupynum_files_memory.npy"):
    info = np.runtime_info()
    rank, ranks = info["rank"], info["ranks"]
    n = int(gib * (1 << 30)) // 8
    gc.collect()
    base = _status("VmRSS")
    a, made = _step(lambda: np.arange(n, dtype=numpy.float64), base)
    t = np._core._tiling(a)
    tile = 8 * int(numpy.prod([h - lo for lo, h in zip(t["lo"], t["hi"])]))
    bound = tile + 64 * MIB
    life = [_maxrss()]
    _, saved = _step(lambda: np.save(path, a), base)
    life.append(_maxrss())
    del a
    b, loaded = _step(lambda: np.load(path), base)
    life.append(_maxrss())
    idx = numpy.linspace(0, n - 1, 1001).astype(numpy.int64)
    ok = bool(numpy.array_equal(numpy.asarray(b[np.asarray(idx)]), idx.astype(numpy.float64)))
    if rank == 0:   # NumPy's reading of the file's header, and the sampled elements (pread)
        with open(path, "rb") as f:
            fmt = numpy.lib.format
            read = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}
            shape, fortran, dtype = read[fmt.read_magic(f)](f)
            start = f.tell()
            got = numpy.array([numpy.frombuffer(os.pread(f.fileno(), 8, start + 8 * int(i)), dtype)[0]
                               for i in idx])
        ok = ok and shape == (n,) and not fortran and dtype == numpy.float64 and \
            bool(numpy.array_equal(got, idx.astype(numpy.float64)))
    del b
    life.append(_maxrss())
    row = (f"rank {rank}/{ranks}: array {8 * n / MIB:.0f} MiB, tile {tile / MIB:.0f} MiB, bound "
            f"(tile + 64 MiB) {bound / MIB:.0f} MiB; peak above the start: arange "
            f"{made / MIB:.0f} MiB, save {saved / MIB:.0f} MiB ({'met' if saved <= bound else 'NOT met'}), "
            f"load {loaded / MIB:.0f} MiB ({'met' if loaded <= bound else 'NOT met'}); "
            f"values {'match' if ok else 'DIFFER'}; "
           f"lifetime peak (ru_maxrss) after arange/save/load/check {'/'.join(f'{x / MIB:.0f}' for x in life)} MiB, "
           f"resident before the first array {base / MIB:.0f} MiB")
    print(row, file=sys.__stdout__, flush=True)   # every rank's (sys.stdout is rank 0's)
    if rank == 0:
        os.unlink(path)
    return ok and saved <= bound and loaded <= bound


if __name__ == "__main__":
    args = sys.argv[1:]
    ok = main(float(args[0]) if args else 2.0, *args[1:2])
    sys.exit(0 if ok else 1)
