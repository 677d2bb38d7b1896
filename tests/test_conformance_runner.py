"""The NumPy-conformance runner's own logic (tests/conformance/): exclusions, the outcome merge
over ranks and resumed runs, the baseline ratchet, and numpy -> cupynum rebinding.  The runner
itself (NumPy's test files on cupynum) is `python -m tests.conformance`, run by CI."""

import os

import numpy
import pytest

import cupynum
from conformance import plugin, report
from conftest import check

HERE = os.path.dirname(os.path.abspath(__file__))
EXCLUSIONS = os.path.join(HERE, "conformance", "exclusions.txt")


def test_exclusion_file_parses_and_every_entry_has_a_reason():
    entries = plugin.load_exclusions(EXCLUSIONS)
    assert len(entries) > 50
    for pattern, _rx, reason in entries:
        assert pattern.startswith("numpy/") and "::" in pattern, pattern
        assert len(reason) > 10, pattern


def test_exclusion_patterns_take_brackets_literally(tmp_path):
    f = tmp_path / "ex.txt"
    f.write_text("# comment\nnumpy/a.py::T::t[O]  # object dtype\nnumpy/b.py::*::u*  # sub\n")
    ex = plugin.load_exclusions(str(f))
    assert plugin.exclusion_of("numpy/a.py::T::t[O]", ex) == ("numpy/a.py::T::t[O]", "object dtype")
    assert plugin.exclusion_of("numpy/a.py::T::t[f]", ex) is None     # not a character class
    assert plugin.exclusion_of("numpy/b.py::K::u_x[1]", ex)[1] == "sub"
    f.write_text("numpy/a.py::T::t\n")
    with pytest.raises(ValueError, match="reason"):
        plugin.load_exclusions(str(f))


def _records(*rows):
    return [dict(zip(("_log", "event", "id", "outcome", "reason", "cupynum"), r)) for r in rows]


def test_merge_takes_the_worst_outcome_over_ranks_and_the_last_of_a_resumed_log():
    recs = _records(("l.rank0", "result", "a", "passed", None, True),
                    ("l.rank1", "result", "a", "failed", "boom", True),
                    ("l.rank0", "result", "b", "failed", "first try", True),
                    ("l.rank0", "result", "b", "passed", None, False),
                    ("l.rank0", "result", "c", "passed", None, False),
                    ("l.rank1", "result", "c", "passed", None, True))
    results, errors = report.merge(recs)
    assert results["a"][:2] == ("failed", "boom")
    assert results["b"][0] == "passed" and results["b"][3] is False
    assert results["c"][0] == "passed" and results["c"][3] is True    # cupynum ran on a rank
    assert errors == {}


def test_resume_skips_finished_tests_and_fails_the_one_that_was_running():
    recs = _records(("l.rank0", "start", "a", None, None, None),
                    ("l.rank0", "result", "a", "passed", None, True),
                    ("l.rank0", "start", "b", None, None, None))
    assert report.unfinished(recs) == ["b"]
    assert report.finished_ids(recs) == {"a"}
    recs += _records(("l", "result", "b", "failed", "crashed", None))
    assert report.unfinished(recs) == []
    assert report.finished_ids(recs) == {"a", "b"}
    assert not report.all_done(recs)
    recs.append({"_log": "l.rank0", "event": "done"})
    assert report.all_done(recs)


def test_ratchet_and_baseline_round_trip(tmp_path):
    path = str(tmp_path / "baseline.txt")
    f = "numpy/x/tests/test_a.py"
    results = {f"{f}::T::ok[1]": ("passed", None, 0, True), f"{f}::T::bad": ("failed", "e", 0, True)}
    report.write_baseline(path, None, results, ["x/tests/test_a.py"], "9.9.9")
    base = report.read_baseline(path)
    assert base == {"numpy": "9.9.9", "ids": {f"{f}::T::ok[1]"}}
    now = {f"{f}::T::ok[1]": ("failed", "broke", 0, True), f"{f}::T::bad": ("passed", None, 0, True)}
    r = report.ratchet(base, now, {}, ["x/tests/test_a.py"])
    assert r["regressions"] == [(f"{f}::T::ok[1]", "broke")]
    assert r["new"] == [f"{f}::T::bad"]
    r = report.ratchet(base, {}, {f: "ImportError"}, ["x/tests/test_a.py"])
    assert r["missing"] == [f"{f}::T::ok[1]"] and r["broken_files"] == [f]
    assert report.ratchet(base, {}, {}, ["y/tests/test_b.py"])["kept"] == 0   # other files


def test_failure_themes():
    assert "long double" in report.theme_of("x", "TypeError: cupynum does not support dtype "
                                                 "dtype('float128')")[0]
    assert report.theme_of("x", "Failed: DID NOT RAISE FloatingPointError")[1] == "#4 ufuncs"
    assert report.theme_of("x", "something new") == ("other", "")


def test_rebinding_answers_numpy_names_with_cupynum():
    assert plugin._cupynum_for("numpy", ()) is cupynum
    assert plugin._cupynum_for("numpy", ("array", "add")) is cupynum
    assert plugin._cupynum_for("numpy.linalg", ("norm",)) is cupynum.linalg
    assert plugin._cupynum_for("numpy.testing", ("assert_equal",)) is cupynum.testing
    assert plugin._cupynum_for("numpy", ("_core",)) is None           # NumPy's internals
    assert plugin._cupynum_for("numpy._core.umath", ()) is None
    assert plugin._cupynum_for("numpy.exceptions", ("AxisError",)) is None


def test_rebinding_swaps_numpy_objects_and_parameters():
    assert plugin._swap(numpy) is cupynum
    assert plugin._swap(numpy.linalg) is cupynum.linalg
    assert plugin._swap(numpy.add) is cupynum.add
    assert plugin._swap(numpy.arccos) is cupynum.arccos    # not its alias acos
    assert plugin._swap(numpy.float64) is numpy.float64
    swapped = plugin._swap([numpy.sum, (numpy.ndarray, 3)])
    assert swapped == [cupynum.sum, (cupynum.ndarray, 3)]
    n = numpy.arange(6.0).reshape(2, 3)
    a, b = plugin._swap((n, numpy.array(["s"])), arrays=True)
    check(a, n)
    assert type(b) is numpy.ndarray                        # a dtype cupynum does not hold
    assert plugin._swap(n) is n                            # arrays only for parameters
