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
    """({test id: (outcome, reason, seconds, touched)}, {collector id: reason}) over every
    rank; `touched`: the test created a cupynum array or ran an op (on some rank)."""
    per_log = {}
    for r in records:
        if r["event"] == "result":
            per_log[(r["_log"], r["id"])] = r       # the last one per log wins (resumed runs)
    results = {}
    for (_log, nid), r in per_log.items():
        cur = results.get(nid)
        touched = bool(r.get("cupynum", True)) or bool(cur and cur[3])
        if cur is None or _RANK[r["outcome"]] > _RANK[cur[0]]:
            results[nid] = (r["outcome"], r.get("reason"), r.get("duration"), touched)
        else:
            results[nid] = cur[:3] + (touched,)
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


# Failure themes: what a failure is about, and which piece of work it waits for.  First match
# wins; the pattern is searched in "<test id> <reason>".  Editorial, like exclusions.txt: update
# it when failures change (unmatched failures show as "other").
THEMES = [
    ("long double (float128/complex256) arrays: cupynum holds no extended-precision dtype",
     "#5 fallback", r"dtype\('(float96|float128|complex192|complex256)'\)"),
    ("floating-point error state: native ops raise no FloatingPointError and warn no "
     "RuntimeWarning under np.errstate / seterr",
     "#4 ufuncs", r"FloatingPointError|fpe error|DID NOT WARN\. No warnings of type "
                  r"\(<class 'RuntimeWarning'>|::TestUfunc::test_sum |TestFloatExceptions"),
    ("object/string/datetime/structured dtype met inside a test over many dtypes (tests about "
     "those dtypes are excluded)", "out of scope", r"does not support dtype"),
    ("ufunc objects: the native ufuncs are functions (no .signature/.types/.resolve_dtypes, no "
     "ufunc signature or docstring introspection, not picklable as ufuncs)", "#4 ufuncs",
     r"'function' object has no attribute|_add_newdoc_ufunc|Can't pickle <function|"
     r"__signature__|TestUFuncInspectSignature|test_ufunc_docstring|test_pickle_withstring|"
     r"TestUfunc::test_reduce_arguments"),
    ("x.view(cls) for ndarray (sub)classes falls back to NumPy, which takes the class for a "
     "dtype", "cupynum bug (#5 fallback)", r"array of references|sub-type of ndarray"),
    ("ndarray.flatten('f'): a lowercase order is read as 'C'", "cupynum bug",
     r"TestDivisionIntegerOverflowsAndDivideByZero::test_overflows"),
    ("a shape given as an array (np.ones(np.array(shape)))", "cupynum bug",
     r"only integer scalar arrays can be converted"),
    ("max/min with initial= or where= hand dtype= to NumPy's max/min", "cupynum bug",
     r"unexpected keyword argument 'dtype'"),
    ("interplay with other array-likes: __array_ufunc__ overrides, __array_wrap__, NumPy scalars "
     "and 0-d arrays, buffer protocol, masked arrays, out=...", "#5 fallback",
     r"returned NotImplemented from __array_ufunc__|__array__ method not producing|"
     r"__array_wrap__|__array_interface__|buffer API|bytes-like|memoryview|MaskedArray|"
     r"ellipsis|return arrays must be of ArrayType|TestSpecialMethods|Decimal|is not a sequence"),
    ("view and identity semantics: .base, OWNDATA, fallback results that NumPy returns as views "
     "or as the operand itself", "#5 fallback",
     r"\.base\b|OWNDATA|may_share_memory|shares_memory| is x\)| is o1?\)|"
     r"assert array\(.*\) is array"),
    ("complex comparisons with a NaN part order it like a number", "cupynum bug (C kernel)",
     r"test_complex_nan_comparisons"),
    ("np.ndarray(shape, ...) cannot be called", "#5 fallback",
     r"cannot be constructed directly"),
    ("subclass results: np.matrix and other subclasses through fallen-back functions come back "
     "as cupynum arrays", "#5 fallback", r"isinstance\(|is PhysicalQuantity|TestLstsq"),
    ("signatures and docstrings of functions differ from NumPy's (inspect.signature, "
     "positional-only parameters, vectorize.__doc__)", "#5 fallback",
     r"signature|[Dd]ocstring|_ParameterKind|<class 'float'> is None"),
    ("argument checking: NumPy raises or warns where cupynum computes, or with another message",
     "#4 ufuncs / #5 fallback",
     r"not raised by|DID NOT RAISE|DID NOT WARN|Regex pattern did not match|"
     r"AxisError: axis \d+ is out|tuple indices must be integers"),
    ("memory-layout flags (order='F' results) asserted inside a wider test", "out of scope",
     r"flags\.(f|c)_contiguous"),
    ("at most 32 dimensions (NumPy: 64)", "cupynum limit (C runtime)",
     r"maximum supported dimension"),
    ("errors of deferred ops are raised at the next value read, not at the call",
     "design (deferred execution)", r"deferred operation|ValueError not raised by power"),
    ("NumPy internals reached through np (np._core..., np._NoValue)", "NumPy private API",
     r"cupynum\._core' has no attribute|'_NoValue'"),
]


def theme_of(nodeid, reason):
    """(theme, work) of a failure, ("other", "") when no theme matches."""
    text = f"{nodeid} {reason or ''}"
    for name, work, pattern in THEMES:
        if re.search(pattern, text):
            return name, work
    return "other", ""


def summarize(results, collect_errors, files):
    """Per file: counts of each outcome; failure groups (key -> Counter of files) with an
    example id each; failure themes (theme -> count)."""
    per_file = {f: Counter() for f in files}
    groups = defaultdict(Counter)
    themes = Counter()
    example = {}
    for nid, (outcome, reason, _sec, touched) in results.items():
        f = file_of(nid)
        short = f[len("numpy/"):] if f.startswith("numpy/") else f
        per_file.setdefault(short, Counter())[outcome] += 1
        if outcome == "passed" and not touched:
            per_file[short]["numpy_only"] += 1
        if outcome == "failed":
            k = group_key(reason)
            groups[k][short] += 1
            example.setdefault(k, nid)
            t = theme_of(nid, reason)
            themes[t] += 1
            example.setdefault(t, nid)
    for cid, reason in collect_errors.items():
        f = file_of(cid)
        short = f[len("numpy/"):] if f.startswith("numpy/") else f
        per_file.setdefault(short, Counter())["collect_errors"] += 1
    return {"per_file": per_file, "groups": groups, "example": example, "themes": themes}


def table(summary, files):
    rows = [("file", "passed", "numpy-only", "failed", "excluded", "skipped", "pass rate")]
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
    return (c["passed"], c["numpy_only"], c["failed"], c["excluded"], c["skipped"], rate)


# ---- the baseline ------------------------------------------------------------------------------

def read_baseline(path):
    """{"numpy": version, "ids": set of test ids} from a baseline file, or None.  Format: a file
    line (`numpy/<file>`), then its passing tests indented by two spaces (`  Class::test[p]`)."""
    if not os.path.exists(path):
        return None
    ids, version, current = set(), None, None
    with open(path) as f:
        for line in f:
            if line.startswith("# numpy "):
                version = line.split()[2]
            elif line.startswith("  ") and current:
                ids.add(f"{current}::{line.strip()}")
            elif line.strip() and not line.startswith("#"):
                current = line.strip()
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
    ran = {file_of(i) for i in results}
    broken = sorted(({file_of(c) for c in collect_errors} | ({file_of(i) for i in mine} - ran))
                    & {file_of(i) for i in mine})
    new = sorted(nid for nid, r in results.items() if r[0] == "passed" and nid not in mine)
    return {"regressions": regressions, "missing": missing, "new": new,
            "broken_files": broken, "kept": len(mine) - len(regressions) - len(missing)}


def write_baseline(path, old, results, files, numpy_version):
    """Record the passing tests of `files` (keeping the old entries of other files)."""
    prefixes = {rel(f) for f in files}
    keep = {i for i in (old["ids"] if old else ()) if file_of(i) not in prefixes}
    ids = keep | {nid for nid, r in results.items() if r[0] == "passed"}
    by_file = defaultdict(list)
    for i in ids:
        f, _, rest = i.partition("::")
        by_file[f].append(rest)
    with open(path, "w") as out:
        out.write("# The NumPy tests that pass on cupynum: the conformance ratchet (each must keep\n"
                  "# passing).  Written by `python -m tests.conformance --update-baseline`; a file,\n"
                  "# then its passing tests indented.\n")
        out.write(f"# numpy {numpy_version}\n")
        for f in sorted(by_file):
            out.write(f + "\n")
            out.writelines(f"  {t}\n" for t in sorted(by_file[f]))


# ---- docs/conformance.md -------------------------------------------------------------------------

# Only for a page that does not exist yet: the text above the generated sections is written by
# hand and kept by every rewrite.
_HEADER = """\
# NumPy conformance

NumPy's own test files run against cupynum: `python -m tests.conformance` (see
`tests/conformance/__main__.py`).  The sections between the markers are generated.
"""


def _section(summary, results, files, ranks, numpy_version, seconds, jobs, one_rank=None):
    out = []
    if ranks == 1:
        out.append(f"## One process\n\nnumpy {numpy_version}; {len(results)} tests in "
                   f"{seconds:.0f} s on {jobs} processes.\n")
    else:
        out.append(f"## {ranks} MPI ranks\n\nEvery rank runs every test with "
                   f"`CUPYNUM_MIN_TILE=1` (arrays partitioned); a test passes when it passes "
                   f"on every rank.  numpy {numpy_version}; {len(results)} tests in "
                   f"{seconds:.0f} s.\n")
    out.append("| file | passed | of which NumPy-only | failed | excluded | skipped | pass rate |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    tot = Counter()
    for f in files:
        c = summary["per_file"].get(f, Counter())
        tot.update(c)
        p, no, fl, ex, sk, rate = _counts(c)
        note = " (collection error)" if c.get("collect_errors") else ""
        out.append(f"| `{f}`{note} | {p} | {no} | {fl} | {ex} | {sk} | {rate} |")
    p, no, fl, ex, sk, rate = _counts(tot)
    out.append(f"| **total** | **{p}** | {no} | **{fl}** | {ex} | {sk} | **{rate}** |")
    if ranks > 1 and one_rank is not None:
        only = sorted(nid for nid, r in results.items()
                      if r[0] == "failed" and nid in one_rank["ids"])
        out.append(f"\n{len(only)} tests fail on {ranks} ranks that pass on one (distribution):\n")
        out.extend(f"- `{nid.split('/tests/', 1)[-1]}`: {_md(results[nid][1] or '')}"
                   for nid in only[:30])
    themes = summary["themes"].most_common()
    out.append("\n### Failures by theme\n")
    out.append("| tests | theme | waits for | example |")
    out.append("|---:|---|---|---|")
    for (name, work), n in themes:
        ex = summary["example"][(name, work)]
        ex = ex.split("::", 1)[1] if "::" in ex else ex
        out.append(f"| {n} | {_md(name)} | {work} | `{_md(ex[:70])}` |")
    groups = sorted(summary["groups"].items(), key=lambda kv: -sum(kv[1].values()))
    n_fail = sum(sum(c.values()) for _k, c in groups)
    out.append(f"\n### Failure messages, largest groups first (top 25 of {len(groups)}, "
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


def update_docs(path, summary, results, files, ranks, numpy_version, seconds, jobs,
                one_rank=None):
    """Rewrite the section of `ranks` in docs/conformance.md (the rest of the page is kept);
    `one_rank`: the one-rank baseline, to list what fails only when distributed."""
    begin, end = f"<!-- ranks={ranks} begin -->", f"<!-- ranks={ranks} end -->"
    text = open(path).read() if os.path.exists(path) else _HEADER
    section = begin + "\n" + _section(summary, results, files, ranks, numpy_version, seconds,
                                      jobs, one_rank) + end
    if begin in text and end in text:
        a = text.index(begin)
        b = text.index(end) + len(end)
        text = text[:a] + section + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(text)
