"""Reading the conformance logs: merged outcomes, per-file counts, failure groups, the baseline
(the ratchet) and docs/conformance.md.

Log records (JSON lines written by plugin.py): `start` and `result` per test, `collect-error`,
`done`.  Each rank (rank 0 alone without MPI) writes `<log>.rank<r>`; the runner itself appends
to `<log>` (tests that were running when a process died).  A test passes when it passed on every rank."""

import glob
import json
import os
import re
from collections import Counter, defaultdict

OUTCOMES = ("passed", "failed", "excluded", "skipped")
# Merging ranks: the worst outcome wins.
_RANK = {"failed": 3, "passed": 2, "skipped": 1, "excluded": 0}


def logs_of(log):
    return [log] + sorted(glob.glob(glob.escape(log) + ".rank*"))


def read_logs(paths):
    """All records of these logs, each tagged with `_log` (its file)."""
    out = []
    for p in paths:
        if not os.path.exists(p):
            continue
        with open(p) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue        # a line cut short by a dying process
                r["_log"] = p
                out.append(r)
    return out


def append(log, **record):
    with open(log, "a") as f:
        f.write(json.dumps(record) + "\n")


def _by_log(records):
    started, finished = defaultdict(set), defaultdict(set)
    for r in records:
        if r["event"] == "start":
            started[r["_log"]].add(r["id"])
        elif r["event"] == "result" and ".rank" in r["_log"]:
            finished[r["_log"]].add(r["id"])
    return started, finished


def _runner_results(records):
    """Ids the runner itself recorded (tests that were running when their process died)."""
    return {r["id"] for r in records if r["event"] == "result" and ".rank" not in r["_log"]}


def unfinished(records):
    """Tests a process started and never logged a result for (it died while they ran)."""
    started, finished = _by_log(records)
    out = set()
    for log, ids in started.items():
        out |= ids - finished[log]
    return sorted(out - _runner_results(records))


def finished_ids(records):
    """Tests with a result in every rank's log, or recorded by the runner: not run again."""
    _started, finished = _by_log(records)
    logs = sorted({r["_log"] for r in records if ".rank" in r["_log"]})
    common = set.intersection(*(finished[log] for log in logs)) if logs else set()
    return common | _runner_results(records)


def all_done(records):
    """Did every rank's pytest session finish?"""
    logs = {r["_log"] for r in records if ".rank" in r["_log"]}
    done = {r["_log"] for r in records if r["event"] == "done"}
    return bool(logs) and logs <= done


def merge(records):
    """({test id: (outcome, reason, seconds)}, {collector id: reason}) over every rank."""
    per_log = {}
    for r in records:
        if r["event"] == "result":
            per_log[(r["_log"], r["id"])] = r       # the last one per log wins (resumed runs)
    results = {}
    for (_log, nid), r in per_log.items():
        cur = results.get(nid)
        if cur is None or _RANK[r["outcome"]] > _RANK[cur[0]]:
            results[nid] = (r["outcome"], r.get("reason"), r.get("duration"))
    errors = {r["id"]: r["reason"] for r in records if r["event"] == "collect-error"}
    return results, errors


def unused_exclusions(records, exclusions_file, files):
    """Patterns of exclusions.txt for the files run that matched no test (stale entries)."""
    used = {r.get("pattern") for r in records if r["event"] == "result"}
    prefixes = {rel(f) for f in files}
    out = []
    with open(exclusions_file) as f:
        for line in f:
            s = line.strip()
            if s and not s.startswith("#"):
                pattern = s.partition(" #")[0].strip()
                if file_of(pattern) in prefixes and pattern not in used:
                    out.append(pattern)
    return out


def file_of(nodeid):
    return nodeid.split("::", 1)[0]


def rel(numpy_file):
    """`_core/tests/test_umath.py` -> the node id prefix `numpy/_core/tests/test_umath.py`."""
    return "numpy/" + numpy_file


_HEX = re.compile(r"0x[0-9a-fA-F]+")
_NUM = re.compile(r"(?<![A-Za-z_])[-+]?\d+(\.\d+)?([eE][-+]?\d+)?")
_QUOTED_ARRAY = re.compile(r"array\(.*")


def group_key(reason):
    """Failures that differ only in numbers, addresses or array reprs group together."""
    if not reason:
        return "failed"
    s = _HEX.sub("0x#", reason)
    s = _QUOTED_ARRAY.sub("array(...)", s)
    s = _NUM.sub("#", s)
    return s[:160]


def summarize(results, collect_errors, files):
    """Per file: counts of each outcome; overall failure groups (key -> Counter of files) with
    an example id each."""
    per_file = {f: Counter() for f in files}
    groups = defaultdict(Counter)
    example = {}
    for nid, (outcome, reason, _sec) in results.items():
        f = file_of(nid)
        short = f[len("numpy/"):] if f.startswith("numpy/") else f
        per_file.setdefault(short, Counter())[outcome] += 1
        if outcome == "failed":
            k = group_key(reason)
            groups[k][short] += 1
            example.setdefault(k, nid)
    for cid, reason in collect_errors.items():
        f = file_of(cid)
        short = f[len("numpy/"):] if f.startswith("numpy/") else f
        per_file.setdefault(short, Counter())["collect_errors"] += 1
    return {"per_file": per_file, "groups": groups, "example": example}


def table(summary, files):
    rows = [("file", "passed", "failed", "excluded", "skipped", "pass rate")]
    tot = Counter()
    for f in files:
        c = summary["per_file"].get(f, Counter())
        tot.update(c)
        rows.append((f + (" (COLLECTION ERROR)" if c.get("collect_errors") else ""),)
                    + _counts(c))
    rows.append(("total",) + _counts(tot))
    w = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(v).ljust(w[i]) if i == 0 else str(v).rjust(w[i])
                               for i, v in enumerate(r)) for r in rows)


def _counts(c):
    ran = c["passed"] + c["failed"]
    rate = f"{100.0 * c['passed'] / ran:.1f}%" if ran else "-"
    return (c["passed"], c["failed"], c["excluded"], c["skipped"], rate)


# ---- the baseline ------------------------------------------------------------------------------

def read_baseline(path):
    if not os.path.exists(path):
        return None
    ids, version = set(), None
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s.startswith("# numpy "):
                version = s.split()[2]
            elif s and not s.startswith("#"):
                ids.add(s)
    return {"numpy": version, "ids": ids}


def ratchet(baseline, results, collect_errors, files):
    prefixes = {rel(f) for f in files}
    mine = {i for i in baseline["ids"] if file_of(i) in prefixes}
    regressions, missing = [], []
    for nid in sorted(mine):
        r = results.get(nid)
        if r is None:
            missing.append(nid)
        elif r[0] != "passed":
            regressions.append((nid, r[1]))
    broken = sorted({file_of(c) for c in collect_errors} & {file_of(i) for i in mine})
    new = sorted(nid for nid, r in results.items() if r[0] == "passed" and nid not in mine)
    return {"regressions": regressions, "missing": missing, "new": new,
            "broken_files": broken, "kept": len(mine) - len(regressions) - len(missing)}


def write_baseline(path, old, results, files, numpy_version):
    prefixes = {rel(f) for f in files}
    keep = {i for i in (old["ids"] if old else ()) if file_of(i) not in prefixes}
    ids = sorted(keep | {nid for nid, r in results.items() if r[0] == "passed"})
    with open(path, "w") as f:
        f.write("# The NumPy tests that pass on cupynum: the conformance ratchet (every id here must\n"
                "# keep passing).  Written by `python -m tests.conformance --update-baseline`.\n")
        f.write(f"# numpy {numpy_version}\n")
        f.writelines(i + "\n" for i in ids)


# ---- docs/conformance.md -------------------------------------------------------------------------

_HEADER = """\
# NumPy conformance

NumPy's own test files, from the installed NumPy, run against cupynum: `np`/`numpy` in each test
module is bound to cupynum (`tests/conformance/`, see its `__main__.py` and `plugin.py`).

```sh
python -m tests.conformance                  # all files below, on one rank (the counts below)
python -m tests.conformance --ci             # what CI runs (see "In CI")
python -m tests.conformance --ranks 3        # the MPI subset under mpirun -np 3, CUPYNUM_MIN_TILE=1
python -m tests.conformance --update-baseline   # rewrite the baseline and this page
```

- **passed / failed**: every test that ran counts; errors, timeouts (30 s per test phase) and
  crashes are failures.
- **excluded**: listed, with a one-line reason each, in `tests/conformance/exclusions.txt` --
  tests of what a distributed array cannot or should not reproduce (strides and memory layout,
  buffer identity, object/string/datetime/structured dtypes, subclass internals, pickling).
- **skipped**: skipped or xfailed by NumPy's own conditions (platform, available memory, which
  the runner sets to 1 GB), as they would be on NumPy.
- The ratchet: `tests/conformance/baseline.txt` lists the passing tests; CI fails when one of
  them fails, and lists newly passing ones.

The tables below are generated; the sections between the markers are rewritten by
`--update-baseline`.
"""


def _section(summary, results, files, ranks, numpy_version, seconds, jobs):
    out = []
    if ranks == 1:
        out.append(f"## One process\n\nnumpy {numpy_version}; {len(results)} tests in "
                   f"{seconds:.0f} s on {jobs} processes.\n")
    else:
        out.append(f"## {ranks} MPI ranks\n\nEvery rank runs every test with "
                   f"`CUPYNUM_MIN_TILE=1` (arrays partitioned); a test passes when it passes "
                   f"on every rank.  numpy {numpy_version}; {len(results)} tests in "
                   f"{seconds:.0f} s.\n")
    out.append("| file | passed | failed | excluded | skipped | pass rate |")
    out.append("|---|---:|---:|---:|---:|---:|")
    tot = Counter()
    for f in files:
        c = summary["per_file"].get(f, Counter())
        tot.update(c)
        p, fl, ex, sk, rate = _counts(c)
        note = " (collection error)" if c.get("collect_errors") else ""
        out.append(f"| `{f}`{note} | {p} | {fl} | {ex} | {sk} | {rate} |")
    p, fl, ex, sk, rate = _counts(tot)
    out.append(f"| **total** | **{p}** | **{fl}** | {ex} | {sk} | **{rate}** |")
    groups = sorted(summary["groups"].items(), key=lambda kv: -sum(kv[1].values()))
    n_fail = sum(sum(c.values()) for _k, c in groups)
    out.append(f"\n### Failure reasons, largest groups first ({len(groups)} groups, "
               f"{n_fail} failures)\n")
    out.append("| tests | reason (numbers replaced by #) | files | example |")
    out.append("|---:|---|---|---|")
    for k, c in groups[:25]:
        fs = ", ".join(f"{os.path.basename(os.path.dirname(os.path.dirname(f)))}/"
                       f"{os.path.basename(f)} {n}" for f, n in c.most_common(4))
        ex = summary["example"][k]
        ex = ex.split("::", 1)[1] if "::" in ex else ex
        out.append(f"| {sum(c.values())} | {_md(k)} | {fs} | `{_md(ex[:80])}` |")
    return "\n".join(out) + "\n"


def _md(s):
    return s.replace("|", "\\|").replace("\n", " ").replace("`", "'")


def update_docs(path, summary, results, files, ranks, numpy_version, seconds, jobs):
    begin, end = f"<!-- ranks={ranks} begin -->", f"<!-- ranks={ranks} end -->"
    text = open(path).read() if os.path.exists(path) else _HEADER
    section = begin + "\n" + _section(summary, results, files, ranks, numpy_version, seconds,
                                      jobs) + end
    if begin in text and end in text:
        a = text.index(begin)
        b = text.index(end) + len(end)
        text = text[:a] + section + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(text)
