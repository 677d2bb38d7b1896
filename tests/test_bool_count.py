"""Counting true elements: sum of bool and count_nonzero, which add bool into int64 by counting
bytes (reduce.c's cpn_kernel_count_nonzero_bytes, also inside fused programs) rather than casting
each element.  Sizes cross the 32-byte lanes, their 255-round flush (8160 bytes) and the fused
blocks; every result is compared with NumPy's (value, dtype, shape, Python/NumPy scalar type)."""

import numpy
import pytest

import cupynum
from conftest import check

SIZES = [0, 1, 7, 31, 32, 33, 1023, 1025, 8159, 8160, 8161, 8193, 100003, 300007]


def _data(n, seed=0):
    return numpy.random.default_rng(seed).standard_normal(n) * 2


@pytest.mark.parametrize("n", SIZES)
def test_count_and_sum_of_a_comparison_1d(n):
    a = _data(n)
    c = cupynum.asarray(a)
    check(cupynum.count_nonzero(c > 1), numpy.count_nonzero(a > 1))
    check((c > 1).sum(), (a > 1).sum())
    check(cupynum.sum(c < 0.5), numpy.sum(a < 0.5))
    check(cupynum.sum(c > 1, dtype=numpy.uint64), numpy.sum(a > 1, dtype=numpy.uint64))
    check((c > 1).sum(dtype=numpy.int8), (a > 1).sum(dtype=numpy.int8))   # wraps, not counted
    check(cupynum.sum(c > 1, initial=5), numpy.sum(a > 1, initial=5))


@pytest.mark.parametrize("n", [0, 1, 33, 8161, 100003])
def test_materialised_bool_array(n):
    b = _data(n, 1) > 0
    c = cupynum.asarray(b)
    check(c.sum(), b.sum())
    check(cupynum.count_nonzero(c), numpy.count_nonzero(b))
    check(c[::3].sum(), b[::3].sum())
    check(c[::-2].sum(), b[::-2].sum())
    check(cupynum.count_nonzero(c[5:]), numpy.count_nonzero(b[5:]))


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (1, 1), (3, 7), (17, 33), (64, 300), (301, 129)])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_2d_axes_keepdims(shape, axis, keepdims):
    a = _data(int(numpy.prod(shape)), 2).reshape(shape)
    c = cupynum.asarray(a)
    check((c > 0.3).sum(axis=axis, keepdims=keepdims), (a > 0.3).sum(axis=axis, keepdims=keepdims))
    check(cupynum.count_nonzero(c > 0.3, axis=axis, keepdims=keepdims),
          numpy.count_nonzero(a > 0.3, axis=axis, keepdims=keepdims))
    b = a > -0.2
    cb = cupynum.asarray(b)
    check(cb.T.sum(axis=axis, keepdims=keepdims), b.T.sum(axis=axis, keepdims=keepdims))
    check(cb[::2, ::3].sum(axis=axis, keepdims=keepdims), b[::2, ::3].sum(axis=axis, keepdims=keepdims))
    check(cupynum.count_nonzero(cb[:, ::-1], axis=axis), numpy.count_nonzero(b[:, ::-1], axis=axis))


@pytest.mark.parametrize("shape", [(0,), (1,), (33,), (8161,), (17, 33), (301, 129)])
def test_where(shape):
    a = _data(int(numpy.prod(shape)), 3).reshape(shape)
    w = _data(int(numpy.prod(shape)), 4).reshape(shape) > 0
    c, cw = cupynum.asarray(a), cupynum.asarray(w)
    check(cupynum.sum(c > 0, where=cw), numpy.sum(a > 0, where=w))
    check(cupynum.sum(c > 0, axis=-1, where=cw, keepdims=True),
          numpy.sum(a > 0, axis=-1, where=w, keepdims=True))
    check(cupynum.sum(c > 0, axis=0, where=cw), numpy.sum(a > 0, axis=0, where=w))


def test_out():
    a = _data(301 * 129, 5).reshape(301, 129)
    c = cupynum.asarray(a)
    o = cupynum.zeros(129, dtype=numpy.int64)
    r = cupynum.sum(c > 0, axis=0, out=o)
    assert r is o
    check(o, numpy.sum(a > 0, axis=0))
    o2 = cupynum.zeros((), dtype=numpy.float64)
    cupynum.sum(c > 0, out=o2)
    check(o2, numpy.sum(a > 0, out=numpy.zeros((), dtype=numpy.float64)))


@pytest.mark.parametrize("n", [8160, 8192, 8193, 100003, 1 << 20])
def test_all_true_and_all_false(n):
    # every lane counts to its limit (255) before it is flushed: a lane that wrapped would show
    a = _data(n, 6)
    c = cupynum.asarray(a)
    check((c > -100).sum(), (a > -100).sum())
    check(cupynum.count_nonzero(c < 100), numpy.count_nonzero(a < 100))
    check((c > 100).sum(), (a > 100).sum())
    check(cupynum.ones(n, dtype=bool).sum(), numpy.ones(n, dtype=bool).sum())
    check(cupynum.ones((3, n), dtype=bool).sum(axis=1), numpy.ones((3, n), dtype=bool).sum(axis=1))


@pytest.mark.parametrize("n", [1, 255, 256, 257, 1000, 8161])
@pytest.mark.parametrize("name", ["any", "all"])
def test_any_all_along_rows_decided_anywhere(n, name):
    """any/all fold bool runs in 256-byte blocks and stop at the block that decides: rows whose
    deciding element sits first, last, on either side of a block edge, in a later block or
    nowhere; along each axis, whole, strided, reversed and of a non-bool array."""
    rows = [[], [0], [n - 1], [min(255, n - 1)], [min(256, n - 1)], [n // 2, n - 1]]
    base = numpy.zeros((len(rows), n), dtype=bool) if name == "any" else \
        numpy.ones((len(rows), n), dtype=bool)
    for r, cols in enumerate(rows):
        base[r, cols] = name == "any"
    c = cupynum.asarray(base)
    f, g = getattr(numpy, name), getattr(cupynum, name)
    for axis in (None, 0, 1, -1):
        check(g(c, axis=axis), f(base, axis=axis))
        check(g(c[:, ::-1], axis=axis), f(base[:, ::-1], axis=axis))
        check(g(c[:, 1::2], axis=axis), f(base[:, 1::2], axis=axis))
    x = base * numpy.arange(1, n + 1) * 0.5   # float: truth of each value
    check(g(cupynum.asarray(x), axis=1), f(x, axis=1))
    for r in range(len(rows)):
        check(g(c[r]), f(base[r]))
