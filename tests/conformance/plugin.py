"""The pytest plugin of the conformance runner: NumPy's own test files, run on cupynum.

Loaded with `-p tests.conformance.plugin` by the runner (`python -m tests.conformance`); none of
what it does changes NumPy or cupynum:

- **Rebinding.**  Test modules are imported and collected as NumPy wrote them: module-level code,
  parametrize lists (and the generators behind them) and class attributes build NumPy objects --
  test data, some of it of dtypes cupynum does not hold.  When collection ends, before any test
  runs, each module's globals are pointed at cupynum: `np` and `numpy`, and every name taken from
  numpy, numpy.linalg, numpy.fft, numpy.random or numpy.testing (`from numpy import array` ->
  `cupynum.array`, found by identity) -- what a user's one-line change does to a test's code.
  NumPy functions held in module or test-class tuples, lists and dicts are swapped the same way,
  and so are a test's parametrize values, where NumPy arrays of the dtypes cupynum holds become
  cupynum arrays too (the inputs the rebound code would have built); module and class constants
  stay NumPy data.  Import statements that a test's code runs are answered the same way (`from
  numpy.random import rand` inside a test gives cupynum's).  NumPy's private modules
  (`numpy._core.umath`, `from numpy import _core`) and the modules cupynum does not stand in for
  (`numpy.exceptions`, `numpy.ma`) stay NumPy's; cupynum itself, NumPy itself and the internals
  of `numpy.testing` keep using NumPy.  `numpy.testing` becomes `cupynum.testing`, whose
  assertions accept cupynum arrays.
- **Honesty.**  A test that never created a cupynum array nor queued an op (it only used NumPy's
  own objects: scalar types, dtypes, its module-level NumPy data) is logged with `cupynum: false`,
  and the report counts its pass apart.
- **Exclusions.**  Tests matched by `exclusions.txt` are not run and are logged as `excluded`
  with the file's reason (see that file for the rules).
- **Timeout.**  Each phase of a test (setup, call, teardown) gets `--conformance-timeout` seconds
  (SIGALRM raises `ConformanceTimeout`, a BaseException so `except Exception` in a test cannot
  swallow it).  A test stuck inside C code never returns to the interpreter: a watchdog thread
  logs it as `hard timeout` and ends the process (`os._exit`), and the runner resumes after it.
- **Deferred failures stay in their test.**  cupynum raises a failed deferred op at the next value
  read; after each test body the plugin runs `cupynum.sync()`, so such a failure fails the test
  that queued the op (where NumPy raises) instead of the next test that reads a value.
- **The log.**  Each outcome is appended (and flushed) as one JSON line to
  `<--conformance-log>.rank<r>` (r: this MPI rank, 0 without MPI), with a `start` line before
  each test, so a crash or a hard timeout leaves a log that names the test that was running.  Outcomes: passed, failed (errors and timeouts included), excluded,
  skipped (NumPy's own skips and xfails: its platform and memory conditions, not cupynum's).

Under `mpirun` every rank runs every test (the program is SPMD) and writes its own log.
`--conformance-shard K/N` keeps every N-th test (by collection order) for parallel workers;
`--conformance-done FILE` deselects the ids already logged (a resumed run)."""

import builtins
import json
import linecache
import os
import re
import faulthandler
import signal
import sys
import threading
import time

import pytest

_NUMPY_DIR = None
_TESTS_FILE_CACHE = {}
# numpy.<sub> names cupynum stands in for: `from numpy.<sub> import x` and `import numpy.<sub>`
# bind cupynum's.
_CUPYNUM_SUBMODULES = ("linalg", "fft", "random", "testing")


class ConformanceTimeout(BaseException):
    """A test phase ran past the per-test timeout."""


# ---- rebinding numpy -> cupynum in NumPy's test modules ---------------------------------------------

_REBOUND = "__cupynum_conformance__"    # set in a test module's globals once it is rebound


def _is_numpy_test_module(globals_):
    f = globals_.get("__file__")
    if not f:
        return False
    r = _TESTS_FILE_CACHE.get(f)
    if r is None:
        p = os.path.realpath(f)
        r = p.startswith(_NUMPY_DIR) and f"{os.sep}tests{os.sep}" in p[len(_NUMPY_DIR):]
        _TESTS_FILE_CACHE[f] = r
    return r


def _cupynum_for(name, fromlist):
    """The cupynum module answering `import name` / `from name import fromlist`, or None."""
    import cupynum
    if fromlist and any(n.startswith("_") and n != "*" for n in fromlist):
        return None     # private names (from numpy import _core): NumPy's
    if name == "numpy":
        return cupynum
    sub = name[len("numpy."):]
    if sub in _CUPYNUM_SUBMODULES:
        # `from numpy.linalg import x` -> cupynum.linalg; `import numpy.linalg` binds the
        # top-level package, which is then cupynum.
        return getattr(cupynum, sub) if fromlist else cupynum
    return None


def install_import_rebinding(numpy_dir):
    """Answer imports of numpy made by test code at test time with cupynum (see the file
    header).  Imports made while a test module is being imported stay NumPy's.  Local."""
    global _NUMPY_DIR
    _NUMPY_DIR = os.path.realpath(numpy_dir) + os.sep
    original = builtins.__import__

    def rebinding_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "numpy" or name.startswith("numpy.")) and globals \
                and _REBOUND in globals and _is_numpy_test_module(globals):
            target = _cupynum_for(name, fromlist)
            if target is not None:
                return target
        return original(name, globals, locals, fromlist, level)

    rebinding_import.__wrapped__ = original
    builtins.__import__ = rebinding_import


_counterparts = None


def _counterpart_map():
    """id(NumPy public object) -> (cupynum module, name), for numpy and the submodules cupynum
    stands in for; the modules themselves map to cupynum's."""
    global _counterparts
    if _counterparts is None:
        import numpy
        import cupynum
        _counterparts = {id(numpy): (None, cupynum)}
        pairs = [(numpy, cupynum)] + [(getattr(numpy, s), getattr(cupynum, s))
                                      for s in _CUPYNUM_SUBMODULES]
        for npmod, cpmod in pairs:
            if npmod is not numpy:
                _counterparts[id(npmod)] = (None, cpmod)
            for n in dir(npmod):
                if n.startswith("_"):
                    continue
                obj = getattr(npmod, n, None)
                if obj is None or isinstance(obj, (int, float, str, bool)):
                    continue
                # Aliases (acos/arccos, concat/concatenate) map to the object's own name.
                if id(obj) not in _counterparts or getattr(obj, "__name__", None) == n:
                    _counterparts[id(obj)] = (cpmod, n)
        _counterparts.pop(id(None), None)
    return _counterparts


def _counterpart(val):
    """cupynum's object for NumPy's public `val` (a module, function, ufunc, class), else val."""
    hit = _counterpart_map().get(id(val))
    if hit is None:
        return val
    mod, attr = hit
    if mod is None:
        return attr
    try:
        return getattr(mod, attr)
    except AttributeError:
        return val


def _swap(val, arrays=False, depth=2):
    """`val` with NumPy's public objects replaced by cupynum's, also inside tuples, lists and
    dicts (`depth` levels).  With `arrays`, plain NumPy arrays of a dtype cupynum holds become
    cupynum arrays (the test's inputs, as the test code would have made them)."""
    import numpy
    t = type(val)
    if t is numpy.ndarray:
        if arrays and val.dtype.kind in "biufc" and val.dtype.char not in "gG":
            import cupynum
            return cupynum.array(val)
        return val
    if t in (tuple, list) and depth > 0:
        new = [_swap(v, arrays, depth - 1) for v in val]
        return val if all(n is v for n, v in zip(new, val)) else t(new)
    if t is dict and depth > 0:
        new = {_swap(k, False, 0): _swap(v, arrays, depth - 1) for k, v in val.items()}
        same = all(k in val and val[k] is v for k, v in new.items())
        return val if same else new
    try:
        return _counterpart(val)
    except TypeError:
        return val


def rebind_module(module):
    """Point a NumPy test module at cupynum: `np`, `numpy`, every name it took from numpy,
    numpy.linalg/fft/random/testing (`from numpy import array` -> cupynum.array, found by
    identity, so aliases too), and NumPy functions held in module-level or test-class-level
    tuples, lists and dicts.  Called once per module, before its first test.  Local."""
    g = module.__dict__
    if _REBOUND in g:
        return
    for name, val in list(g.items()):
        if name.startswith("__"):
            continue
        if isinstance(val, type) and getattr(val, "__module__", None) == module.__name__:
            for attr, v in list(vars(val).items()):
                if not attr.startswith("__") and type(v) in (tuple, list, dict):
                    new = _swap(v)
                    if new is not v:
                        setattr(val, attr, new)
            continue
        g[name] = _swap(val)
    g[_REBOUND] = True


def rebind_params(item):
    """The test's parameters (parametrize values) as the rebound code would have made them:
    NumPy functions -> cupynum's, NumPy arrays -> cupynum arrays.  Collective under MPI (arrays
    are placed), called at the same point of every rank's run.  Local otherwise."""
    spec = getattr(item, "callspec", None)
    if spec is None:
        return
    for k, v in list(spec.params.items()):
        spec.params[k] = _swap(v, arrays=True)


# ---- exclusions ----------------------------------------------------------------------------------

def _pattern_regex(pattern):
    """Only `*` is a wildcard (test ids contain `[`, `]`): fnmatch would read them as classes."""
    return re.compile(".*".join(re.escape(p) for p in pattern.split("*")) + r"\Z")


def load_exclusions(path):
    """[(pattern, compiled, reason)] from exclusions.txt: `pattern  # reason` per line."""
    out = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            pattern, sep, reason = s.partition(" #")
            pattern, reason = pattern.strip(), reason.strip()
            if not sep or not reason:
                raise ValueError(f"{path}:{lineno}: an exclusion needs '  # reason': {s!r}")
            out.append((pattern, _pattern_regex(pattern), reason))
    return out


def exclusion_of(nodeid, exclusions):
    """(pattern, reason) of the first exclusion matching `nodeid`, or None."""
    for pattern, rx, reason in exclusions:
        if rx.match(nodeid):
            return pattern, reason
    return None


# ---- the log -----------------------------------------------------------------------------------------

class _Log:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def write(self, **record):
        with self.lock:
            self.f.write(json.dumps(record) + "\n")
            self.f.flush()


def _test_statement(excinfo):
    """The statement of NumPy's test file that raised (the deepest frame in a tests folder)."""
    for entry in reversed(excinfo.traceback):
        path = os.path.realpath(str(entry.path))
        if _NUMPY_DIR and path.startswith(_NUMPY_DIR) and f"{os.sep}tests{os.sep}" in path:
            # The line, not the whole statement: pytest's statement parses the file each time.
            stmt = " ".join(linecache.getline(path, entry.lineno + 1).split())
            return f"{os.path.basename(path)}:{entry.lineno + 1}", stmt
    return None, ""


def failure_reason(excinfo):
    """`ExceptionType: first line of its message`, shortened: what groups failures.  A bare
    assertion (`assert_(x)`, `assert x`) is named by its statement in the test file."""
    if excinfo is None:
        return "failed"
    e = excinfo.value
    msg = str(e).strip().splitlines()
    first = msg[0].strip() if msg else ""
    if isinstance(e, AssertionError) and (not first or first == "assert False"):
        _where, stmt = _test_statement(excinfo)
        first = f"`{stmt}`" if stmt else first
    if len(first) > 200:
        first = first[:197] + "..."
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


# ---- the plugin ------------------------------------------------------------------------------------

def pytest_addoption(parser):
    g = parser.getgroup("conformance", "cupynum conformance runner")
    g.addoption("--conformance-log", help="append JSON lines of outcomes to this file")
    g.addoption("--conformance-exclusions", help="the exclusion file")
    g.addoption("--conformance-timeout", type=float, default=60.0,
                help="seconds per test phase (setup, call, teardown)")
    g.addoption("--conformance-shard", default="0/1", help="K/N: keep every N-th test from K")
    g.addoption("--conformance-done", help="a file of test ids already logged: deselected")


class ConformancePlugin:
    def __init__(self, config):
        import cupynum
        rank = cupynum.runtime_info()["rank"]
        self.log = _Log(f"{config.getoption('conformance_log')}.rank{rank}")
        ex = config.getoption("conformance_exclusions")
        self.exclusions = load_exclusions(ex) if ex else []
        self.timeout = config.getoption("conformance_timeout")
        k, n = config.getoption("conformance_shard").split("/")
        self.shard = (int(k), int(n))
        self.done = set()
        done = config.getoption("conformance_done")
        if done and os.path.exists(done):
            with open(done) as f:
                self.done = {line.rstrip("\n") for line in f if line.strip()}
        self.current = None         # (nodeid, start time) of the running test
        self.outcome = {}           # nodeid -> outcome so far across phases
        self.reason = {}
        self.where = {}             # nodeid -> file:line of the failing statement
        self.started = time.monotonic()
        threading.Thread(target=self._watchdog, daemon=True).start()

    # -- collection --

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report):
        if report.failed:
            self.log.write(event="collect-error", id=report.nodeid,
                           reason=_collect_reason(report))

    def pytest_collection_modifyitems(self, session, config, items):
        k, n = self.shard
        keep, dropped = [], []
        for i, item in enumerate(items):
            if i % n != k or item.nodeid in self.done:
                dropped.append(item)
                continue
            hit = exclusion_of(item.nodeid, self.exclusions)
            if hit is not None:
                self.log.write(event="result", id=item.nodeid, outcome="excluded", reason=hit[1],
                               pattern=hit[0], duration=0.0)
                dropped.append(item)
                continue
            keep.append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep

    def pytest_collection_finish(self, session):
        # Collection (imports, parametrize lists, generated cases) was NumPy's; running is
        # cupynum's.
        for item in session.items:
            mod = getattr(item, "module", None)
            if mod is not None and _is_numpy_test_module(mod.__dict__):
                rebind_module(mod)

    # -- running, with a timeout --

    def pytest_runtest_logstart(self, nodeid, location):
        self.stats = _activity()
        self.current = (nodeid, time.monotonic())
        self.log.write(event="start", id=nodeid)
        # The watchdog is a Python thread: C code that holds the GIL while it waits (a rank
        # stuck in MPI) stops it too.  faulthandler's timer is a C thread: it prints the
        # stacks and ends the process a little later; the runner counts the test as crashed.
        faulthandler.dump_traceback_later(2 * self.timeout + 60, exit=True)

    def _alarm(self, signum, frame):
        raise ConformanceTimeout(f"test phase ran past {self.timeout:g} s")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item):
        rebind_params(item)
        return (yield from self._timed())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        return (yield from self._timed(flush=True))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item):
        return (yield from self._timed())

    def _timed(self, flush=False):
        """Run the phase under the timeout.  With `flush`, the test's queued cupynum ops run
        before it ends: a deferred failure (NumPy would have raised in the test) belongs to the
        test that queued it, and never surfaces in the next test's first value read."""
        import cupynum
        previous = signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            try:
                result = yield
            except BaseException:
                if flush:
                    _drop_queue(cupynum)
                raise
            if flush:
                cupynum.sync()
            return result
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def _watchdog(self):
        """A test stuck in C code never sees SIGALRM: log it and end the process."""
        hard = 2 * self.timeout + 30
        while True:
            time.sleep(1.0)
            cur = self.current
            if cur is not None and time.monotonic() - cur[1] > hard:
                self.log.write(event="result", id=cur[0], outcome="failed",
                               reason=f"hard timeout: no return to Python within {hard:g} s",
                               duration=time.monotonic() - cur[1])
                os._exit(3)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        nid = item.nodeid
        if report.failed:
            if self.outcome.get(nid) != "failed":
                self.outcome[nid] = "failed"
                if isinstance(call.excinfo.value if call.excinfo else None, ConformanceTimeout):
                    self.reason[nid] = f"timeout: {call.excinfo.value}"
                else:
                    self.reason[nid] = (failure_reason(call.excinfo) if call.when == "call"
                                        else f"[{call.when}] {failure_reason(call.excinfo)}")
                if call.excinfo is not None:
                    self.where[nid] = _test_statement(call.excinfo)[0]
        elif report.skipped and nid not in self.outcome:
            self.outcome[nid] = "skipped"
            self.reason[nid] = _skip_reason(report)
        elif report.passed and call.when == "call" and nid not in self.outcome:
            self.outcome[nid] = "passed"
        return report

    def pytest_runtest_logfinish(self, nodeid, location):
        cur = self.current
        outcome = self.outcome.pop(nodeid, "passed")
        self.log.write(event="result", id=nodeid, outcome=outcome,
                       reason=self.reason.pop(nodeid, None), where=self.where.pop(nodeid, None),
                       duration=round(time.monotonic() - cur[1], 3) if cur else None,
                       cupynum=_activity() != self.stats)
        self.current = None
        faulthandler.cancel_dump_traceback_later()

    def pytest_sessionfinish(self, session, exitstatus):
        self.log.write(event="done", seconds=round(time.monotonic() - self.started, 1))


def _drop_queue(cupynum):
    """Run what a failed test left queued, ignoring a deferred failure there (it failed already)."""
    try:
        cupynum.sync()
    except Exception:  # noqa: BLE001
        pass


def _activity():
    """Counters that move whenever cupynum holds data or computes: allocations, ops."""
    import cupynum
    s = cupynum.runtime_stats()
    return (s["bytes_allocated"], s["ops_executed"], s["queued"])   # all grow with use


def _skip_reason(report):
    if hasattr(report, "wasxfail"):
        return f"xfail: {report.wasxfail}"[:200]
    lr = report.longrepr
    if isinstance(lr, tuple) and len(lr) == 3:
        return str(lr[2])[:200]
    return str(lr)[:200]


def _collect_reason(report):
    text = str(report.longrepr).strip().splitlines()
    errs = [line for line in text if line.startswith("E ")]
    return (errs[0][1:].strip() if errs else (text[-1] if text else "collection error"))[:200]


def pytest_configure(config):
    if not config.getoption("conformance_log"):
        return
    import numpy
    # NumPy's own fixtures and assertion helpers must see NumPy: import them before rebinding.
    import numpy.testing  # noqa: F401
    install_import_rebinding(os.path.dirname(numpy.__file__))
    import cupynum  # noqa: F401  (initialises the runtime, MPI included, before any test)
    config.pluginmanager.register(ConformancePlugin(config), "cupynum-conformance")
