"""Arrays from host data (frombuffer, fromiter, fromstring) and ndarray(shape, ...) constructed
directly (cupynum/_construct.py): NumPy is the oracle; under mpirun each rank keeps its tile."""

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, raises_same, same_error, sample, shape_id

RANKS = cupynum.runtime_info()["ranks"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_frombuffer(dtype):
    n = sample((40,), dtype, seed=1)
    b = n.tobytes()
    for count, offset in ((-1, 0), (5, 0), (-1, dtype.itemsize), (3, 2 * dtype.itemsize), (0, 0)):
        check(cupynum.frombuffer(b, dtype=dtype, count=count, offset=offset),
              numpy.frombuffer(b, dtype=dtype, count=count, offset=offset))
    check(cupynum.frombuffer(bytearray(b), dtype), numpy.frombuffer(bytearray(b), dtype))
    check(cupynum.frombuffer(memoryview(b), dtype), numpy.frombuffer(memoryview(b), dtype))


def test_frombuffer_is_a_copy_and_tiled():
    b = bytearray(numpy.arange(64.0).tobytes())
    c = cupynum.frombuffer(b, numpy.float64)
    c[0] = 99.0
    assert numpy.frombuffer(b, numpy.float64)[0] == 0.0
    c2 = cupynum.frombuffer(b, numpy.float64) * 2
    check(c2, numpy.frombuffer(b, numpy.float64) * 2)
    if RANKS > 1:
        assert cupynum._core._tiling(c2)["tiled"]


@pytest.mark.parametrize("args", [
    (b"abc", numpy.float64), (b"abcdefgh", numpy.float64, 2), (b"abcdefgh", numpy.float64, -1, 9),
    (b"abcdefgh", "q9"), (b"abcdefgh", numpy.float64, -1, -1)])
def test_frombuffer_errors(args):
    same_error(lambda: numpy.frombuffer(*args), lambda: cupynum.frombuffer(*args))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_fromiter(dtype):
    vals = sample((23,), dtype, seed=2).tolist()
    check(cupynum.fromiter(iter(vals), dtype), numpy.fromiter(iter(vals), dtype))
    check(cupynum.fromiter(iter(vals), dtype, count=5), numpy.fromiter(iter(vals), dtype, count=5))
    check(cupynum.fromiter((v for v in vals), dtype=dtype), numpy.fromiter((v for v in vals), dtype))


def test_fromiter_errors_and_objects():
    same_error(lambda: numpy.fromiter(iter([1, 2]), float, count=5),
               lambda: cupynum.fromiter(iter([1, 2]), float, count=5))
    raises_same(lambda: numpy.fromiter([1, 2]), lambda: cupynum.fromiter([1, 2]))
    r = cupynum.fromiter(iter(["a", None]), dtype=object)
    numpy.testing.assert_array_equal(r, numpy.fromiter(iter(["a", None]), dtype=object))


def test_fromstring():
    for s, kw in (("1 2 3.5", {"sep": " "}), ("1,2,3", {"sep": ",", "dtype": numpy.int64}),
                  ("1,2,3,4", {"sep": ",", "count": 2}), ("", {"sep": " "})):
        check(cupynum.fromstring(s, **kw), numpy.fromstring(s, **kw))
    same_error(lambda: numpy.fromstring(b"\x01\x02", dtype=numpy.uint8, sep=""),
               lambda: cupynum.fromstring(b"\x01\x02", dtype=numpy.uint8, sep=""))
    same_error(lambda: numpy.fromstring("1 2"), lambda: cupynum.fromstring("1 2"))


@pytest.mark.parametrize("order", [None, "C", "F"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 5)], ids=shape_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_ndarray_constructed(dtype, shape, order):
    kw = {} if order is None else {"order": order}
    c = cupynum.ndarray(shape, dtype=dtype, **kw)
    n = numpy.ndarray(shape, dtype=dtype, **kw)
    assert type(c) is cupynum.ndarray
    assert c.shape == n.shape and c.dtype == n.dtype
    assert c.flags.c_contiguous == n.flags.c_contiguous
    assert c.flags.f_contiguous == n.flags.f_contiguous
    c[...] = sample(shape, dtype)   # usable as any array
    check(c + c, sample(shape, dtype) + sample(shape, dtype))


def test_ndarray_as_numpy_code_writes_it():
    KE = cupynum.ndarray(10, dtype=cupynum.float64)
    KE[:] = cupynum.arange(10.0)
    check(KE * 2, numpy.arange(10.0) * 2)
    check(cupynum.ndarray((2, 3)), numpy.zeros((2, 3)))   # default float64 (zero-filled here)
    c = cupynum.ndarray.__new__(cupynum.ndarray, (4,), numpy.int32)
    assert c.shape == (4,) and c.dtype == numpy.int32


def test_ndarray_with_buffer():
    b = numpy.arange(12.0).tobytes()
    for args, kw in (((3,), {"buffer": b}), (((2, 2),), {"buffer": b, "offset": 16}),
                     (((2, 3),), {"buffer": b, "order": "F"}),
                     (((3,),), {"buffer": b, "strides": (16,)})):
        check(cupynum.ndarray(*args, **kw), numpy.ndarray(*args, **kw))


@pytest.mark.parametrize("args, kw", [
    ((-1,), {}), ((3.0,), {}), (("a",), {}), ((3,), {"dtype": "q9"}), ((3,), {"order": "X"}),
    ((), {}), ((3,), {"foo": 1}), (((2, 2), float, None, 0, None, "F", 1), {}),
    ((4,), {"buffer": b"abc"}), ((2,), {"buffer": b"a" * 16, "offset": 9})])
def test_ndarray_errors(args, kw):
    same_error(lambda: numpy.ndarray(*args, **kw), lambda: cupynum.ndarray(*args, **kw))


def test_ndarray_of_a_dtype_cupynum_lacks():
    r = cupynum.ndarray(3, dtype=object)
    assert type(r) is numpy.ndarray and r.dtype == object
