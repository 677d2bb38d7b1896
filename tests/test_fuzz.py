"""The differential fuzzer's own checks (tests/fuzz.py): generation is deterministic, the
comparison finds what it must (a wrong value, a wrong dtype, a missing or different exception,
an array changed by a failed statement), and a short seeded run on cupynum finds no failure."""

import os

import numpy
import pytest

import fuzz

LAUNCHED = any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))


def test_generation_is_deterministic_and_varied():
    a = fuzz.generate(7, 20, 10)
    assert a == fuzz.generate(7, 20, 10)
    assert a != fuzz.generate(8, 20, 10)
    kinds = {line.split("=")[1].split("(")[0].strip() for prog in a for line in prog if "=" in line}
    assert len(kinds) > 15


def _result(events=(), **vars):
    return (0, list(events), {k: fuzz._value(v, numpy) for k, v in vars.items()})


def test_compare_finds_values_dtypes_exceptions_and_writes_after_errors():
    lines = ["v1 = np.arange(3.0)", "v1[5] = 1"]
    ref = _result(v1=numpy.arange(3.0))
    assert fuzz.compare(ref, _result(v1=numpy.arange(3.0)), lines) == []
    assert fuzz.compare(ref, _result(v1=numpy.arange(3.0) * (1 + 1e-15)), lines) == []
    [(cat, _, why)] = fuzz.compare(ref, _result(v1=numpy.array([0.0, 1.0, 2.5])), lines)
    assert cat == "wrong" and "values" in why
    [(cat, _, why)] = fuzz.compare(ref, _result(v1=numpy.arange(3.0, dtype=numpy.float32)), lines)
    assert cat == "wrong" and "dtype" in why
    [(cat, _, why)] = fuzz.compare(ref, _result(v1=numpy.array([0.0, numpy.nan, 2.0])), lines)
    assert cat == "wrong" and "NaN" in why
    snap = {"v1": fuzz._value(numpy.arange(3.0), numpy)}
    err = _result([(1, "IndexError", "index 5 is out of bounds", snap)], v1=numpy.arange(3.0))
    [(cat, i, _)] = fuzz.compare(err, ref, lines)
    assert (cat, i) == ("raise", 1)
    other = _result([(1, "ValueError", "no", snap)], v1=numpy.arange(3.0))
    assert fuzz.compare(err, other, lines)[0][0] == "raise"
    changed = {"v1": fuzz._value(numpy.ones(3), numpy)}
    bad = _result([(1, "IndexError", "index 5 is out of bounds", changed)], v1=numpy.ones(3))
    assert fuzz.compare(err, bad, lines)[0][:2] == ("after-error", 1)
    msg = _result([(1, "IndexError", "another text", snap)], v1=numpy.arange(3.0))
    assert [c for c, _, _ in fuzz.compare(err, msg, lines)] == ["message"]


@pytest.mark.skipif(LAUNCHED, reason="the fuzzer launches its own child processes")
def test_a_short_seeded_run_finds_no_failure(capsys):
    assert fuzz.main(["--programs", "30", "--seed", "11", "--show", "3", "--minimize", "5"]) == 0
    out = capsys.readouterr().out
    assert "fuzz: 30 programs" in out and "0 crash, 0 hang, 0 wrong" in out
