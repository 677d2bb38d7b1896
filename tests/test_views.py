"""Indexing: basic indexing gives views (writes seen through every alias), overlapping assignment,
reshape/ravel view-or-copy, setitem broadcasting, errors, advanced indexing. NumPy is the oracle:
each test does the same operations on a NumPy array and a cupynum array and compares."""

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, both, check, dtype_id, same_outcome, sample

pytestmark = [pytest.mark.device]

S = slice
E = Ellipsis

BASIC_KEYS_1D = [
    0, 3, -1, -10, S(None), S(2, 7), S(None, None, 2), S(1, None, 3), S(None, None, -1),
    S(8, 2, -2), S(-3, None), S(None, -3), S(5, 5), S(7, 2), S(100, 200), S(-100, 3),
    S(None, None, -3), S(-1, -11, -4), (E,), (None,), (S(None), None), (None, 3), (E, 4),
    (E, None), (S(2, 5), E), (None, E, None),
]

BASIC_KEYS_3D = [
    0, -1, (1, 2), (1, 2, 3), (-1, -1, -1), (S(None), 1), (E, 1), (E, S(None, None, -2)),
    (0, E, 0), (S(None, None, -1), S(1, None, 2), S(None, None, -3)), (None, 0, None, S(1, 3)),
    (S(1, 2), None, E), (E,), (), (S(None), S(None), S(None)), (1, S(None, None, -1), None),
    (S(3, 0, -1), 2), (E, None), (S(0, 0), E), (-2, S(-2, None), S(None, 2)),
]


def _id(k):
    return repr(k).replace("slice", "s").replace("Ellipsis", "...")


@pytest.mark.parametrize("key", BASIC_KEYS_1D, ids=_id)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32, numpy.bool_, numpy.complex64],
                         ids=dtype_id)
def test_basic_getitem_1d(key, dtype):
    n, c = both(sample((10,), dtype))
    check(c[key], n[key])


@pytest.mark.parametrize("key", BASIC_KEYS_3D, ids=_id)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int64, numpy.uint8], ids=dtype_id)
def test_basic_getitem_3d(key, dtype):
    n, c = both(sample((4, 5, 6), dtype))
    check(c[key], n[key])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_integer_index_returns_numpy_scalar(dtype):
    n, c = both(sample((3, 4), dtype))
    check(c[1, 2], n[1, 2])
    check(c[-1][-2], n[-1][-2])
    check(c[()], n[()])
    n0, c0 = both(sample((), dtype))
    check(c0[()], n0[()])
    check(c0[...], n0[...])
    check(c0[None], n0[None])


@pytest.mark.parametrize("key", [k for k in BASIC_KEYS_3D if not isinstance(k, int)
                                 and not (isinstance(k, tuple) and len(k) == 3
                                          and all(isinstance(x, int) for x in k))], ids=_id)
def test_basic_views_write_through(key):
    """A write into a basic-index view changes the base array (and vice versa)."""
    n, c = both(sample((4, 5, 6), numpy.float64))
    vn, vc = n[key], c[key]
    vn[...] = -1.0
    vc[...] = -1.0
    check(c, n)
    n[...] = 3.5
    c[...] = 3.5
    check(vc, vn)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_two_views_of_same_data_alias(dtype):
    n, c = both(sample((6, 8), dtype))
    an, ac = n[1:5, ::2], c[1:5, ::2]
    bn, bc = n[::-1, 1:], c[::-1, 1:]
    cn, cc = n.T[::3], c.T[::3]
    an[1, :] = bn[0, 0]
    ac[1, :] = bc[0, 0]
    bn[2] = 1
    bc[2] = 1
    cn[:, 2] = an[0, 1]
    cc[:, 2] = ac[0, 1]
    for x_c, x_n in ((ac, an), (bc, bn), (cc, cn), (c, n)):
        check(x_c, x_n)


def test_views_of_views_and_chained_slices():
    n, c = both(numpy.arange(120.0).reshape(4, 5, 6))
    vn = n[1:, ::-1][:, 1:4][..., ::2][None][0, :, 2]
    vc = c[1:, ::-1][:, 1:4][..., ::2][None][0, :, 2]
    check(vc, vn)
    vn *= -1
    vc *= -1
    check(c, n)
    vn[1] += 1000
    vc[1] += 1000
    check(c, n)


def test_inplace_ops_on_views_write_base():
    n, c = both(numpy.arange(30, dtype=numpy.int64).reshape(5, 6))
    for op in ("__iadd__", "__isub__", "__imul__", "__ifloordiv__", "__imod__"):
        getattr(n[1:4, ::2], op)(3)
        getattr(c[1:4, ::2], op)(3)
        check(c, n)
    n[::-1, 1] += n[:, 0]
    c[::-1, 1] += c[:, 0]
    check(c, n)


OVERLAP_1D = [
    ("a[1:] = a[:-1]", lambda a: a.__setitem__(S(1, None), a[:-1])),
    ("a[:-1] = a[1:]", lambda a: a.__setitem__(S(None, -1), a[1:])),
    ("a[::-1] = a", lambda a: a.__setitem__(S(None, None, -1), a)),
    ("a[:] = a[::-1]", lambda a: a.__setitem__(S(None), a[::-1])),
    ("a[2:] = a[:-2]", lambda a: a.__setitem__(S(2, None), a[:-2])),
    ("a[::2] = a[1::2]", lambda a: a.__setitem__(S(None, None, 2), a[1::2])),
    ("a[1::2] = a[::2]", lambda a: a.__setitem__(S(1, None, 2), a[::2])),
    ("a[:5] = a[5:]", lambda a: a.__setitem__(S(None, 5), a[5:])),
    ("a[9:0:-2] = a[:5]", lambda a: a.__setitem__(S(9, 0, -2), a[:5])),
    ("a[1:] += a[:-1]", lambda a: a[1:].__iadd__(a[:-1])),
    ("a[:-1] -= a[1:]", lambda a: a[:-1].__isub__(a[1:])),
    ("a[::-1] *= a", lambda a: a[::-1].__imul__(a)),
    ("a[1:] = a[:-1] + a[1:]", lambda a: a.__setitem__(S(1, None), a[:-1] + a[1:])),
]


@pytest.mark.parametrize("desc,op", OVERLAP_1D, ids=[d for d, _ in OVERLAP_1D])
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float64, numpy.complex128], ids=dtype_id)
def test_overlapping_assignment_1d(desc, op, dtype):
    n, c = both(numpy.arange(1, 11).astype(dtype))
    op(n)
    op(c)
    check(c, n)


def test_overlap_with_different_strides_reads_source_first():
    """a[3:8] = a[1:10:2]: NumPy's 1-D same-direction shortcut (no temporary copy; the inner loop
    runs backwards) gives a[6] == 10, which is not the documented "as if the source were copied
    first" semantics. cupynum must give the copy semantics, computed here with NumPy on a copy."""
    n, c = both(numpy.arange(1, 11))
    n[3:8] = n[1:10:2].copy()
    c[3:8] = c[1:10:2]
    check(c, n)


OVERLAP_2D = [
    ("a[1:, ::2] = a[:-1, 1::2]", lambda a: a.__setitem__((S(1, None), S(None, None, 2)), a[:-1, 1::2])),
    ("a[:-1, 1::2] = a[1:, ::2]", lambda a: a.__setitem__((S(None, -1), S(1, None, 2)), a[1:, ::2])),
    ("a[:] = a.T", lambda a: a.__setitem__(S(None), a.T)),
    ("a[::-1, ::-1] = a", lambda a: a.__setitem__((S(None, None, -1), S(None, None, -1)), a)),
    ("a[1:, 1:] = a[:-1, :-1]", lambda a: a.__setitem__((S(1, None), S(1, None)), a[:-1, :-1])),
    ("a[:-1, :-1] = a[1:, 1:]", lambda a: a.__setitem__((S(None, -1), S(None, -1)), a[1:, 1:])),
    ("a[0] = a[:, 0]", lambda a: a.__setitem__(0, a[:, 0])),
    ("a[:, 1] = a[2]", lambda a: a.__setitem__((S(None), 1), a[2])),
    ("a[1:] = a[0]", lambda a: a.__setitem__(S(1, None), a[0])),
    ("a[:, ::-1] = a[:, 0:1]", lambda a: a.__setitem__((S(None), S(None, None, -1)), a[:, 0:1])),
    ("a += a.T", lambda a: a.__iadd__(a.T)),
    ("a[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1]",
     lambda a: a.__setitem__((S(1, -1), S(1, -1)), a[:-2, 1:-1] + a[2:, 1:-1])),
]


@pytest.mark.parametrize("desc,op", OVERLAP_2D, ids=[d for d, _ in OVERLAP_2D])
@pytest.mark.parametrize("dtype", [numpy.int64, numpy.float32], ids=dtype_id)
def test_overlapping_assignment_2d(desc, op, dtype):
    n, c = both(numpy.arange(36).reshape(6, 6).astype(dtype))
    op(n)
    op(c)
    check(c, n)


# ---- reshape / ravel / transpose: views where NumPy's are views -------------------------------

@pytest.mark.parametrize("shape", [(12,), (3, 4), (2, 2, 3), (-1, 6), (4, -1), (1, 12, 1)], ids=repr)
def test_reshape_of_contiguous_is_view(shape):
    n, c = both(numpy.arange(12.0))
    rn, rc = n.reshape(shape), c.reshape(shape)
    check(rc, rn)
    rn[(0,) * rn.ndim] = -5
    rc[(0,) * rc.ndim] = -5
    rn[(-1,) * rn.ndim] = 99
    rc[(-1,) * rc.ndim] = 99
    check(c, n)


def test_reshape_forms():
    n, c = both(numpy.arange(24))
    check(c.reshape(2, 3, 4), n.reshape(2, 3, 4))
    check(c.reshape((4, 6)), n.reshape((4, 6)))
    check(cupynum.reshape(c, (6, 4)), numpy.reshape(n, (6, 4)))
    check(cupynum.reshape(c, -1), numpy.reshape(n, -1))
    check(c.reshape(-1, 2, 3), n.reshape(-1, 2, 3))
    check(c[::2].reshape(3, 4), n[::2].reshape(3, 4))
    check(c.reshape(2, 12).T.reshape(24), n.reshape(2, 12).T.reshape(24))
    check(cupynum.array(7).reshape(1, 1), numpy.array(7).reshape(1, 1))
    check(cupynum.zeros((0, 3)).reshape(3, 0), numpy.zeros((0, 3)).reshape(3, 0))


@pytest.mark.parametrize("bad", [(5,), (5, -1), (-1, -1), (7, 4), (2, -2)], ids=repr)
def test_reshape_bad_shape_raises_valueerror(bad):
    n, c = both(numpy.arange(24))
    same_outcome(lambda a: a.reshape(bad), n, c)


def test_ravel_of_c_contiguous_is_view():
    n, c = both(numpy.arange(12).reshape(3, 4))
    rn, rc = n.ravel(), c.ravel()
    rn[5] = -1
    rc[5] = -1
    check(c, n)
    rn2, rc2 = numpy.ravel(n), cupynum.ravel(c)
    rn2[0] = 77
    rc2[0] = 77
    check(c, n)


@pytest.mark.parametrize("make", [
    lambda a: a.T, lambda a: a[:, ::2], lambda a: a[::-1], lambda a: a[:, 1:3], lambda a: a.T[1:],
], ids=["T", "cols-step2", "rows-reversed", "cols-slice", "T-slice"])
def test_ravel_of_noncontiguous_is_copy(make):
    n, c = both(numpy.arange(20).reshape(4, 5))
    rn, rc = make(n).ravel(), make(c).ravel()
    check(rc, rn)
    rn[0] = -100
    rc[0] = -100
    rn[-1] = -200
    rc[-1] = -200
    check(c, n)
    check(rc, rn)


def test_ravel_of_row_slice_is_view():
    n, c = both(numpy.arange(20).reshape(4, 5))
    rn, rc = n[1:3].ravel(), c[1:3].ravel()
    rn[:] = 0
    rc[:] = 0
    check(c, n)


def test_reshape_of_transpose_is_copy():
    n, c = both(numpy.arange(12).reshape(3, 4))
    rn, rc = n.T.reshape(12), c.T.reshape(12)
    check(rc, rn)
    rn[:] = 0
    rc[:] = 0
    check(c, n)


def test_flatten_is_always_copy():
    n, c = both(numpy.arange(6).reshape(2, 3))
    fn, fc = n.flatten(), c.flatten()
    fn[0] = 50
    fc[0] = 50
    check(c, n)
    check(fc, fn)


def test_transpose_is_view_and_swapaxes():
    n, c = both(numpy.arange(24).reshape(2, 3, 4))
    for args in [(), ((2, 0, 1),), (1, 2, 0), (None,)]:
        check(c.transpose(*args), n.transpose(*args))
    check(cupynum.transpose(c, (1, 0, 2)), numpy.transpose(n, (1, 0, 2)))
    check(c.swapaxes(0, 2), n.swapaxes(0, 2))
    tn, tc = n.transpose(2, 0, 1), c.transpose(2, 0, 1)
    tn[1, 1, :] = -9
    tc[1, 1, :] = -9
    check(c, n)


def test_shape_setter():
    n, c = both(numpy.arange(12))
    n.shape = (3, 4)
    c.shape = (3, 4)
    check(c, n)
    nt, ct = n.T, c.T
    with pytest.raises(AttributeError):
        nt.shape = (12,)
    with pytest.raises(AttributeError):
        ct.shape = (12,)


# ---- setitem ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_setitem_scalars(dtype):
    n, c = both(numpy.zeros((4, 5), dtype=dtype))
    for key, val in [((1, 2), 1), ((0,), True), ((S(None), 3), 2), ((S(1, 3), S(None, None, 2)), 5),
                     ((E, -1), 0), ((-1, E), 3), ((), 1)]:
        n[key] = val
        c[key] = val
        check(c, n)
    if dtype.kind in "fc":
        n[2, 2] = 2.75
        c[2, 2] = 2.75
        check(c, n)
    if dtype.kind == "c":
        n[3, 3] = 1 - 4j
        c[3, 3] = 1 - 4j
        check(c, n)


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int32, numpy.uint16, numpy.bool_], ids=dtype_id)
def test_setitem_float_into_int_truncates(dtype):
    n, c = both(numpy.zeros(5, dtype=dtype))
    n[1] = 3.7
    c[1] = 3.7
    n[2:4] = -0.9 if dtype != numpy.uint16 else 0.9
    c[2:4] = -0.9 if dtype != numpy.uint16 else 0.9
    check(c, n)


def test_setitem_numpy_scalar_types():
    n, c = both(numpy.zeros(6))
    for i, v in enumerate([numpy.float32(1.5), numpy.int8(-3), numpy.uint64(7), numpy.bool_(True),
                           numpy.float16(0.25), numpy.int64(2**40)]):
        n[i] = v
        c[i] = v
    check(c, n)


@pytest.mark.parametrize("key,value_shape", [
    ((S(None),), (5,)), ((S(None),), (1,)), ((S(None),), ()), ((S(None),), (4, 5)),
    ((S(None),), (4, 1)), ((S(1, 3),), (1, 5)), ((E, 0), (4,)), ((0,), (5,)),
    ((S(None), S(None, None, 2)), (3,)), ((S(None, None, -1), S(1, 4)), (4, 3)),
    ((S(None), None, S(None)), (1, 1, 5)), ((S(None),), (1, 4, 5)),
], ids=repr)
@pytest.mark.parametrize("source", ["numpy", "cupynum", "list"])
def test_setitem_broadcasting_arrays(key, value_shape, source):
    n, c = both(numpy.zeros((4, 5), dtype=numpy.int32))
    val = (numpy.arange(int(numpy.prod(value_shape))) + 1).reshape(value_shape).astype(numpy.int32)
    v = {"numpy": val, "cupynum": cupynum.array(val), "list": val.tolist()}[source]
    if source == "list" and len(value_shape) > n[key].ndim:
        # NumPy reads a list to at most the target's dimensions: (1, 4, 5) into (4, 5) raises
        with pytest.raises(ValueError) as e:
            n[key] = v
        with pytest.raises(ValueError) as got:
            c[key] = v
        assert str(got.value) == str(e.value)
        check(c, n)
        return
    n[key] = val
    c[key] = v
    check(c, n)


@pytest.mark.parametrize("src_dtype", [numpy.float64, numpy.int64, numpy.bool_, numpy.float32],
                         ids=dtype_id)
@pytest.mark.parametrize("dst_dtype", [numpy.int16, numpy.float32, numpy.uint8, numpy.complex64],
                         ids=dtype_id)
def test_setitem_casts_array_value(src_dtype, dst_dtype):
    n, c = both(numpy.zeros(6, dtype=dst_dtype))
    val = sample((6,), src_dtype, low=0, high=100)
    n[:] = val
    c[:] = cupynum.array(val)
    check(c, n)


# ---- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [4, -5, (0, 5), (0, -6), (4, 0), 100, (1, 1, 1), (0, 0, 0),
                                 (E, 1, 2, 3), (1, E, E)], ids=repr)
def test_getitem_index_errors(key):
    n, c = both(numpy.arange(20).reshape(4, 5))
    same_outcome(lambda a: a[key], n, c)


@pytest.mark.parametrize("key", [4, -5, (0, 5), (1, 1, 1)], ids=repr)
def test_setitem_index_errors_leave_array_unchanged(key):
    n, c = both(numpy.arange(20).reshape(4, 5))
    with pytest.raises(IndexError):
        n[key] = 1
    with pytest.raises(IndexError):
        c[key] = 1
    check(c, n)


def test_index_0d_array_errors():
    n, c = both(numpy.array(3.0))
    same_outcome(lambda a: a[0], n, c)
    same_outcome(lambda a: a[:], n, c)


@pytest.mark.parametrize("key", [1.5, "a", (1, 2.0), [1.5]], ids=repr)
def test_invalid_index_types(key):
    n, c = both(numpy.arange(10).reshape(2, 5))
    same_outcome(lambda a: a[key], n, c)


@pytest.mark.parametrize("key,value_shape", [
    ((S(None),), (3,)), ((S(None),), (4, 4)), ((0,), (4,)), ((S(1, 3),), (3, 5)),
    ((S(None),), (2, 4, 5)), ((S(None), 0), (5,)),
], ids=repr)
def test_setitem_bad_broadcast_raises_valueerror(key, value_shape):
    n, c = both(numpy.arange(20).reshape(4, 5))
    val = numpy.ones(value_shape, dtype=numpy.int64)
    with pytest.raises(ValueError):
        n[key] = val
    with pytest.raises(ValueError):
        c[key] = cupynum.array(val)
    with pytest.raises(ValueError):
        c[key] = val
    check(c, n)


# ---- advanced indexing ----------------------------------------------------------------------------

ADV_KEYS = [
    [0, 2, 3], [-1, 0, -1], numpy.array([3, 1]), numpy.array([], dtype=numpy.intp),
    ([0, 1], [2, 3]), ([0, 3], S(None)), (S(None), [4, 0, 1]), (1, [0, 0, 4]),
    ([[0, 1], [2, 3]],), (numpy.array([[1], [2]]), numpy.array([0, 4])),
    numpy.array([True, False, True, False]), ([True, True, False, True], S(1, 3)),
    (S(None), numpy.array([False, True, False, True, True])),
    (numpy.arange(20).reshape(4, 5) % 3 == 0,), (E, [1, 2]), ([1, 2], None),
]


@pytest.mark.parametrize("key", ADV_KEYS, ids=_id)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16, numpy.bool_], ids=dtype_id)
def test_advanced_getitem(key, dtype):
    n, c = both(sample((4, 5), dtype))
    check(c[key], n[key])


@pytest.mark.parametrize("key", ADV_KEYS, ids=_id)
def test_advanced_getitem_with_cupynum_index_arrays(key):
    n, c = both(sample((4, 5), numpy.int64))
    ckey = tuple(cupynum.array(k) if isinstance(k, numpy.ndarray) else k for k in key) \
        if isinstance(key, tuple) else (cupynum.array(key) if isinstance(key, numpy.ndarray) else key)
    check(c[ckey], n[key])


def test_advanced_getitem_is_copy():
    n, c = both(numpy.arange(10.0))
    gn, gc = n[[1, 2, 3]], c[[1, 2, 3]]
    gn[:] = -1
    gc[:] = -1
    check(c, n)
    check(gc, gn)


@pytest.mark.parametrize("key", ADV_KEYS, ids=_id)
def test_advanced_setitem_scalar(key):
    n, c = both(sample((4, 5), numpy.int32))
    n[key] = -7
    c[key] = -7
    check(c, n)


def test_advanced_setitem_arrays_and_masks():
    n, c = both(numpy.arange(20.0).reshape(4, 5))
    n[[0, 2]] = numpy.array([1.0, 2.0, 3.0, 4.0, 5.0])
    c[[0, 2]] = cupynum.array([1.0, 2.0, 3.0, 4.0, 5.0])
    check(c, n)
    mask_n = n > 6
    mask_c = c > 6
    check(mask_c, mask_n)
    n[mask_n] = 0.5
    c[mask_c] = 0.5
    check(c, n)
    n[n < 3] += 100
    c[c < 3] += 100
    check(c, n)
    n[:, [1, 3]] = n[:, [0, 2]] * 2
    c[:, [1, 3]] = c[:, [0, 2]] * 2
    check(c, n)


def test_advanced_index_errors():
    n, c = both(numpy.arange(20).reshape(4, 5))
    same_outcome(lambda a: a[[0, 4]], n, c)
    same_outcome(lambda a: a[[0, 1], [1, 2, 3]], n, c)
    same_outcome(lambda a: a[numpy.array([True, False])], n, c)


# ---- broadcast_to -------------------------------------------------------------------------------

@pytest.mark.parametrize("src_shape,shape", [((3,), (2, 3)), ((1,), (4,)), ((2, 1), (2, 5)),
                                             ((), (3, 2)), ((4, 1, 3), (4, 2, 3))], ids=repr)
def test_broadcast_to_values(src_shape, shape):
    n, c = both(sample(src_shape, numpy.int16))
    check(cupynum.broadcast_to(c, shape), numpy.broadcast_to(n, shape))
    check(numpy.broadcast_to(c, shape), numpy.broadcast_to(n, shape))


def test_broadcast_to_is_read_only():
    n, c = both(numpy.arange(3))
    bn, bc = numpy.broadcast_to(n, (2, 3)), cupynum.broadcast_to(c, (2, 3))
    with pytest.raises(ValueError):
        bn[0, 0] = 5
    with pytest.raises(ValueError):
        bc[0, 0] = 5
    with pytest.raises(ValueError):
        bc += 1
    check(c, n)
    check(bc, bn)


@pytest.mark.parametrize("src_shape,shape", [((3,), (4,)), ((2, 3), (3,)), ((2,), (2, 3))],
                         ids=repr)
def test_broadcast_to_bad_shape_raises_valueerror(src_shape, shape):
    n, c = both(numpy.ones(src_shape))
    same_outcome(lambda a: (numpy if isinstance(a, numpy.ndarray) else cupynum).broadcast_to(a, shape),
                 n, c)


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_ravel_flatten_reshape_orders(order):
    n, c = both(numpy.arange(24).reshape(2, 3, 4))
    for make in (lambda a: a, lambda a: a.T, lambda a: a[:, ::2]):
        check(make(c).ravel(order), make(n).ravel(order))
        check(make(c).flatten(order), make(n).flatten(order))
        if order in ("C", "F", "A"):
            check(make(c).reshape(4, -1, order=order), make(n).reshape(4, -1, order=order))


# ---- .real / .imag are views ----------------------------------------------------------------------

@pytest.mark.parametrize("part", ["real", "imag"])
@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=dtype_id)
def test_real_imag_of_complex_are_views(part, dtype):
    n, c = both(sample((3, 4), dtype))
    vn, vc = getattr(n, part), getattr(c, part)
    vn[0] = 9
    vc[0] = 9
    check(c, n)
    vn[1:, ::2] *= -1
    vc[1:, ::2] *= -1
    check(c, n)
    n[2, 3] = 5 - 7j
    c[2, 3] = 5 - 7j
    check(vc, vn)


def test_real_of_real_array_is_the_array():
    n, c = both(numpy.arange(6.0))
    rn, rc = n.real, c.real
    rn[0] = 9
    rc[0] = 9
    check(c, n)


@pytest.mark.parametrize("part", ["real", "imag"])
def test_real_imag_setters(part):
    n, c = both(sample((2, 3), numpy.complex128))
    setattr(n, part, numpy.arange(3.0))
    setattr(c, part, cupynum.arange(3.0))
    check(c, n)
    nr, cr = both(numpy.arange(3.0))
    same_outcome(lambda a: setattr(a, part, 1.5), nr, cr, compare=lambda x, y: None)
    check(cr, nr)
