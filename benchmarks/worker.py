"""python -m benchmarks.worker SPEC: the suite's subprocess (not meant to be run by hand).

SPEC is JSON: {"lib": "numpy"|"cupynum", "mode": "memory"|"time", "repeat": R,
"runs": [{"name": ..., "size": {...}}, ...], "out": DIR}. Each rank writes DIR/rank<r>.json:
{"rank": r, "ranks": N, "runs": [...]} with, per run,

- mode "memory": `peak_bytes`, the growth of the peak resident set (VmHWM) over its value
  after the imports (one run: use one run per process for a clean figure);
- mode "time": `times` (a warm-up run, then R timed runs, each ended by cupynum.sync() and
  started after a barrier so the ranks start together), `result`, and this rank's `bytes_sent`
  and `messages_sent` during the last timed run."""
import json
import os
import resource
import sys
import time
import warnings


def _maxrss_bytes():
    """This process's peak resident set. Linux: VmHWM, which starts afresh at exec; ru_maxrss
    there also counts the parent's resident set at fork (the suite's, large by then)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r if sys.platform == "darwin" else r * 1024   # macOS reports bytes, others KiB


def main(argv):
    spec = json.loads(argv[0])
    if spec["lib"] == "cupynum":
        import cupynum as lib
        rank = lib.runtime_info()["rank"]
    else:
        import numpy as lib
        rank = 0
    from .measure import _fallback_names
    from .programs import BENCHMARKS

    out = []
    base = _maxrss_bytes()
    for run in spec["runs"]:
        bench = BENCHMARKS[run["name"]]
        if spec["mode"] == "memory":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                bench.func(lib, **run["size"])
                if spec["lib"] == "cupynum":
                    lib.sync()
            out.append({"name": run["name"], "peak_bytes": max(0, _maxrss_bytes() - base)})
            continue
        fresh = getattr(sys.modules.get("cupynum._fallback"), "reset_warnings", None)
        if fresh is not None:
            fresh()     # list this program's fallbacks even if an earlier one warned of them
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = bench.func(lib, **run["size"])
        times = []
        for k in range(spec["repeat"]):
            lib._core.barrier()
            if k == spec["repeat"] - 1:
                lib.reset_stats()
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = bench.func(lib, **run["size"])
                lib.sync()
            times.append(time.perf_counter() - t0)
        stats = lib.runtime_stats()
        out.append({"name": run["name"], "times": times, "result": result,
                    "bytes_sent": stats["bytes_sent"], "messages_sent": stats["messages_sent"],
                    "fallbacks": _fallback_names(caught)})
    ranks = lib.runtime_info()["ranks"] if spec["lib"] == "cupynum" else 1
    with open(os.path.join(spec["out"], f"rank{rank:04d}.json"), "w") as fh:
        json.dump({"rank": rank, "ranks": ranks, "runs": out}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
