"""Errors: NumPy's exception types for shape mismatches, bad axes, bad indices, unsupported
dtypes; every array involved in a failing call is unchanged afterwards; an op whose NumPy error
depends on values (integer power with an array exponent) raises at its call; a failing deferred
op (power.reduce) raises at the next value read, names the op, and leaves the runtime usable."""

import operator

import numpy
import pytest
from numpy.exceptions import AxisError

import cupynum
from conftest import both, check

UFuncTypeError = numpy._core._exceptions.UFuncTypeError


def _arrays():
    """Fresh NumPy/cupynum pairs used by the failing calls below."""
    a = numpy.arange(12, dtype=numpy.int64).reshape(3, 4)
    b = numpy.arange(6, dtype=numpy.float64).reshape(2, 3) * 0.5
    c = numpy.array([1, 2, 3], dtype=numpy.int8)
    return {"a": both(a), "b": both(b), "c": both(c)}


FAILING = [
    # (description, exception type, call taking a dict name -> array)
    ("a + b shapes", ValueError, lambda x: x["a"] + x["b"]),
    ("a * b.T[:2]", ValueError, lambda x: x["a"] * x["b"].T[:2]),
    ("a += a[:2]", ValueError, lambda x: x["a"].__iadd__(x["a"][:2])),
    ("b -= a", ValueError, lambda x: x["b"].__isub__(x["a"])),
    ("b *= b[:, :2]", ValueError, lambda x: x["b"].__imul__(x["b"][:, :2])),
    ("a[:] = b", ValueError, lambda x: x["a"].__setitem__(slice(None), x["b"])),
    ("a[0] = c", ValueError, lambda x: x["a"].__setitem__(0, x["c"])),
    ("a @ b", ValueError, lambda x: x["a"] @ x["b"]),
    ("b @= b", ValueError, lambda x: x["b"].__imatmul__(x["b"])),
    ("a @= a", ValueError, lambda x: x["a"].__imatmul__(x["a"])),
    ("a.reshape(5, 3)", ValueError, lambda x: x["a"].reshape(5, 3)),
    ("a.sum(axis=2)", AxisError, lambda x: x["a"].sum(axis=2)),
    ("max(b, axis=-3)", AxisError, lambda x: (cupynum if isinstance(x["b"], cupynum.ndarray)
                                             else numpy).max(x["b"], axis=-3)),
    ("mean(a, axis=(0, 5))", AxisError, lambda x: x["a"].mean(axis=(0, 5))),
    ("transpose(a, (0, 2))", AxisError, lambda x: x["a"].transpose(0, 2)),
    ("a[3]", IndexError, lambda x: x["a"][3]),
    ("a[0, -5]", IndexError, lambda x: x["a"][0, -5]),
    ("a[1, 1, 1]", IndexError, lambda x: x["a"][1, 1, 1]),
    ("a[3] = 1", IndexError, lambda x: x["a"].__setitem__(3, 1)),
    ("a[[0, 3]]", IndexError, lambda x: x["a"][[0, 3]]),
    ("a[[0, 3]] = 7", IndexError, lambda x: x["a"].__setitem__([0, 3], 7)),
    ("c + 1000", OverflowError, lambda x: x["c"] + 1000),
    ("c += 1000", OverflowError, lambda x: x["c"].__iadd__(1000)),
    ("c[0] = 1000", OverflowError, lambda x: x["c"].__setitem__(0, 1000)),
    ("a += b[0, :1] float into int", UFuncTypeError, lambda x: x["a"].__iadd__(x["b"][0, :1])),
    ("a /= 2", UFuncTypeError, lambda x: x["a"].__itruediv__(2)),
    ("c <<= 1.5", TypeError, lambda x: x["c"].__ilshift__(1.5)),
    ("b & b", TypeError, lambda x: x["b"] & x["b"]),
    ("b % 1j", TypeError, lambda x: x["b"] % 1j),
    ("a[0.5]", IndexError, lambda x: x["a"][0.5]),
    ("int(a)", TypeError, lambda x: int(x["a"])),
    ("bool(a)", ValueError, lambda x: bool(x["a"])),
    ("a.item()", ValueError, lambda x: x["a"].item()),
    ("a.astype(int8, casting='safe')", TypeError,
     lambda x: x["a"].astype(numpy.int8, casting="safe")),
]


@pytest.mark.parametrize("desc,exc,call", FAILING, ids=[f[0] for f in FAILING])
def test_error_type_and_operands_unchanged(desc, exc, call):
    arrays = _arrays()
    np_side = {k: v[0] for k, v in arrays.items()}
    cp_side = {k: v[1] for k, v in arrays.items()}
    before = {k: v.copy() for k, v in np_side.items()}
    with pytest.raises(exc) as en:
        call(np_side)
    assert type(en.value) is not None
    with pytest.raises(exc):
        call(cp_side)
    for k in before:
        check(cp_side[k], before[k])
    # NumPy's own arrays are unchanged too (the oracle agrees that the call had no effect)
    for k in before:
        numpy.testing.assert_array_equal(np_side[k], before[k], strict=True)


@pytest.mark.parametrize("make", [
    lambda m: m.array(["a", "b"]),
    lambda m: m.array([1, 2], dtype=object),
    lambda m: m.zeros(3, dtype=object),
    lambda m: m.zeros(3, dtype="U3"),
    lambda m: m.ones(2, dtype="datetime64[s]"),
    lambda m: m.array([None, 1]),
    lambda m: m.full(2, "x"),
    lambda m: m.arange(3).astype(object),
    lambda m: m.array(numpy.array([1.0], dtype=numpy.longdouble)),
], ids=["str-list", "object-dtype", "zeros-object", "zeros-U3", "datetime", "None",
        "full-str", "astype-object", "longdouble"])
def test_unsupported_dtype_raises_typeerror(make):
    make(numpy)  # NumPy supports it ...
    with pytest.raises(TypeError):  # ... cupynum refuses with TypeError
        make(cupynum)


def test_unsupported_dtype_in_numpy_asarray_of_mixed_input():
    n, c = both(numpy.arange(3.0))
    with pytest.raises(TypeError):
        c[:] = cupynum.array(["1", "2", "3"])
    check(c, n)


def test_failed_setitem_of_strings_leaves_array_unchanged():
    n, c = both(numpy.arange(3.0))
    with pytest.raises(ValueError):
        n[0] = "abc"
    with pytest.raises(ValueError):
        c[0] = "abc"
    check(c, n)


# ---- deferred errors ---------------------------------------------------------------------------

def _deferred_power_failure(a, e):
    """a ** e computed by a deferred op that fails on its data: power.reduce over the rows
    [a, e] (a ** e with an array exponent raises at the call, as NumPy: its own test below)."""
    rows = cupynum.empty((2,) + a.shape, dtype=a.dtype)
    rows[0] = a
    rows[1] = e
    return cupynum.power.reduce(rows, axis=0)


def test_deferred_power_error_raised_at_read_naming_op():
    a = cupynum.array([1, 2, 3, 4])
    e = cupynum.array([1, -1, 2, 0])
    a_before, e_before = numpy.asarray(a).copy(), numpy.asarray(e).copy()
    with pytest.raises(ValueError):
        numpy.asarray(a_before) ** e_before  # NumPy raises immediately
    b = _deferred_power_failure(a, e)
    with pytest.raises(ValueError, match="power"):
        numpy.asarray(b)  # the next value read raises, naming the op
    # the operands are unchanged and the runtime keeps working
    check(a, a_before)
    check(e, e_before)
    n, c = both(numpy.arange(10))
    check(c * 2 + 1, n * 2 + 1)
    check((c ** 2).sum(), (n ** 2).sum())
    cupynum.sync()
    assert cupynum.runtime_stats()["queued"] == 0


@pytest.mark.parametrize("read", [
    lambda b: repr(b), lambda b: b.tolist(), lambda b: float(b.sum()), lambda b: b[0].item(),
    lambda b: numpy.asarray(b), lambda b: cupynum.sync(), lambda b: bool(b[1] == 0),
], ids=["repr", "tolist", "sum", "item", "asarray", "sync", "bool"])
def test_deferred_error_raised_by_every_kind_of_read(read):
    a = cupynum.array([2, 3], dtype=numpy.int32)
    b = _deferred_power_failure(a, cupynum.array([-2, 1], dtype=numpy.int32))
    with pytest.raises(ValueError, match="power"):
        read(b)
    # interpreter and runtime survive; new work runs
    n, c = both(numpy.arange(5, dtype=numpy.int32))
    check(c + c, n + n)
    check(a, numpy.array([2, 3], dtype=numpy.int32))


def test_inplace_power_error_at_the_call():
    n, c = both(numpy.array([1, 2, 3]))
    with pytest.raises(ValueError) as en:
        n **= numpy.array([1, -1, 1])
    with pytest.raises(ValueError) as ec:
        c **= cupynum.array([1, -1, 1])
    assert str(ec.value) == str(en.value)
    check(c, n)  # like NumPy's, the failed in-place power left the array as it was
    # the runtime survives
    check(cupynum.arange(4) * 3, numpy.arange(4) * 3)


def test_scalar_negative_integer_power_raises():
    n, c = both(numpy.array([1, 2, 3]))
    with pytest.raises(ValueError):
        n ** -1
    with pytest.raises(ValueError, match="power|negative"):
        r = c ** -1
        numpy.asarray(r)
    check(c, n)


def test_many_errors_in_a_row_do_not_break_runtime():
    for _ in range(20):
        a = cupynum.array([1, 2])
        with pytest.raises(ValueError):
            numpy.asarray(_deferred_power_failure(a, cupynum.array([-1, -1])))
        with pytest.raises(ValueError):
            a + cupynum.ones(3, dtype=numpy.int64)
        with pytest.raises(AxisError):
            a.sum(axis=1)
    n, c = both(numpy.arange(100.0).reshape(10, 10))
    check(c.T @ c, n.T @ n, rtol=1e-14)


def test_error_in_binary_op_with_numpy_operand_leaves_both_unchanged():
    n, c = both(numpy.arange(6.0))
    other = numpy.ones(4)
    other_before = other.copy()
    with pytest.raises(ValueError):
        c + other
    with pytest.raises(ValueError):
        other + c
    with pytest.raises(ValueError):
        c += other
    check(c, n)
    numpy.testing.assert_array_equal(other, other_before, strict=True)


@pytest.mark.parametrize("op", [operator.add, operator.lt, operator.and_], ids=["add", "lt", "and"])
def test_broadcast_error_message_mentions_shapes(op):
    a, b = numpy.ones((2, 3), dtype=numpy.int8), numpy.ones((4,), dtype=numpy.int8)
    with pytest.raises(ValueError) as en:
        op(a, b)
    with pytest.raises(ValueError) as ec:
        op(cupynum.array(a), cupynum.array(b))
    assert "(2,3)" in str(en.value).replace(" ", "")
    assert "(2,3)" in str(ec.value).replace(" ", "") and "(4,)" in str(ec.value).replace(" ", "")


def test_failed_result_never_reads_as_data():
    """NumPy never binds the result of a failing op. cupynum binds it before the failure is
    known, so a second read of it must raise again rather than return uninitialised memory."""
    a = cupynum.array([1, 2, 3])
    b = _deferred_power_failure(a, cupynum.array([1, -1, 2]))
    with pytest.raises(ValueError, match="power"):
        numpy.asarray(b)
    with pytest.raises(ValueError):
        numpy.asarray(b)


def test_ops_queued_after_failing_op_are_correct_or_raise():
    """Ops queued after a failing op (documented as dropped) must not later read as silently
    wrong data: their value is NumPy's, or reading them raises."""
    n = numpy.array([1, 2, 3])
    a = cupynum.array(n)
    b = _deferred_power_failure(a, cupynum.array([1, -1, 2]))
    d = a + 1
    with pytest.raises(ValueError, match="power"):
        numpy.asarray(b)
    try:
        got = numpy.asarray(d)
    except ValueError:
        return
    numpy.testing.assert_array_equal(got, n + 1, strict=True)


@pytest.mark.parametrize("edt", [numpy.int8, numpy.int32, numpy.int64])
@pytest.mark.parametrize("adt", [numpy.int64, numpy.uint8, numpy.int16])
def test_integer_power_with_negative_exponent_array_raises_at_the_call(adt, edt):
    """NumPy's ValueError and message from the faulty line itself (try/except around it works),
    and nothing left behind for a later, unrelated read."""
    n, c = both(numpy.arange(3, dtype=adt))
    e = numpy.array([-3, 1, 2], dtype=edt)
    with pytest.raises(ValueError) as en:
        n ** e
    with pytest.raises(ValueError) as ec:
        c ** cupynum.array(e)
    assert str(ec.value) == str(en.value)
    check(c.tolist(), n.tolist())
    check(c ** cupynum.array([3, 1, 2], dtype=edt), n ** numpy.array([3, 1, 2], dtype=edt))
