"""The functions whose NumPy results are views (squeeze, expand_dims, swapaxes, moveaxis, flip,
rot90, diagonal, atleast_*, broadcast_arrays, the splits...) give views in cupynum too: the
values are NumPy's, a write through the result is seen in the operand and a write to the operand
is seen through the result, and creating one sends no bytes (under mpirun every array is
partitioned with CUPYNUM_MIN_TILE=1).  NumPy is the oracle: every step is done on a NumPy array
and a cupynum array and compared."""

import re
import warnings

import numpy
import pytest

import cupynum
from conftest import check, dtype_id, sample

pytestmark = [pytest.mark.device]

DTYPES = [numpy.float64, numpy.int16, numpy.complex64, numpy.bool_]

# (id, base shape, f(module, x) -> view or list/tuple of views)
CASES = [
    ("squeeze", (1, 4, 1, 3), lambda m, x: m.squeeze(x)),
    ("squeeze_axis", (1, 4, 1, 3), lambda m, x: m.squeeze(x, axis=2)),
    ("squeeze_axes", (1, 4, 1, 3), lambda m, x: m.squeeze(x, axis=(0, -2))),
    ("squeeze_all", (1, 1), lambda m, x: m.squeeze(x)),
    ("squeeze_none", (3, 4), lambda m, x: m.squeeze(x)),
    ("squeeze_method", (4, 1, 3), lambda m, x: x.squeeze()),
    ("squeeze_of_slice", (5, 6), lambda m, x: m.squeeze(x[1:2, ::-2])),
    ("expand_dims0", (4, 3), lambda m, x: m.expand_dims(x, 0)),
    ("expand_dims_last", (4, 3), lambda m, x: m.expand_dims(x, -1)),
    ("expand_dims_tuple", (4, 3), lambda m, x: m.expand_dims(x, (0, 2, 4))),
    ("expand_dims_of_T", (4, 3), lambda m, x: m.expand_dims(x.T, 1)),
    ("atleast_1d_0d", (), lambda m, x: m.atleast_1d(x)),
    ("atleast_2d_1d", (5,), lambda m, x: m.atleast_2d(x)),
    ("atleast_2d_0d", (), lambda m, x: m.atleast_2d(x)),
    ("atleast_3d_1d", (5,), lambda m, x: m.atleast_3d(x)),
    ("atleast_3d_2d", (4, 3), lambda m, x: m.atleast_3d(x)),
    ("atleast_3d_0d", (), lambda m, x: m.atleast_3d(x)),
    ("atleast_2d_many", (6,), lambda m, x: m.atleast_2d(x[:3], x[3:])),
    ("swapaxes", (2, 3, 4), lambda m, x: m.swapaxes(x, 0, 2)),
    ("swapaxes_neg", (4, 3), lambda m, x: m.swapaxes(x, -1, 0)),
    ("swapaxes_method", (2, 3, 4), lambda m, x: x.swapaxes(1, -1)),
    ("moveaxis", (2, 3, 4), lambda m, x: m.moveaxis(x, 0, -1)),
    ("moveaxis_many", (2, 3, 4, 5), lambda m, x: m.moveaxis(x, (0, 1), (3, 0))),
    ("rollaxis", (2, 3, 4), lambda m, x: m.rollaxis(x, 2)),
    ("rollaxis_start", (2, 3, 4, 5), lambda m, x: m.rollaxis(x, 1, 4)),
    ("rollaxis_same", (2, 3), lambda m, x: m.rollaxis(x, 1, 2)),
    ("permute_dims", (2, 3, 4), lambda m, x: m.permute_dims(x, (1, 2, 0))),
    ("permute_dims_none", (2, 3, 4), lambda m, x: m.permute_dims(x)),
    ("matrix_transpose", (2, 3, 4), lambda m, x: m.matrix_transpose(x)),
    ("linalg_matrix_transpose", (3, 4), lambda m, x: m.linalg.matrix_transpose(x)),
    ("flip", (3, 4), lambda m, x: m.flip(x)),
    ("flip_axis", (2, 3, 4), lambda m, x: m.flip(x, 1)),
    ("flip_axes", (2, 3, 4), lambda m, x: m.flip(x, (0, -1))),
    ("flip_1d", (7,), lambda m, x: m.flip(x)),
    ("flip_of_slice", (8, 6), lambda m, x: m.flip(x[1::3, ::2], 0)),
    ("fliplr", (3, 4), lambda m, x: m.fliplr(x)),
    ("flipud", (3, 4), lambda m, x: m.flipud(x)),
    ("flipud_1d", (5,), lambda m, x: m.flipud(x)),
    ("rot90", (3, 4), lambda m, x: m.rot90(x)),
    ("rot90_k2", (3, 4), lambda m, x: m.rot90(x, 2)),
    ("rot90_k3", (3, 4), lambda m, x: m.rot90(x, 3)),
    ("rot90_k0", (3, 4), lambda m, x: m.rot90(x, 0)),
    ("rot90_kneg_axes", (2, 3, 4), lambda m, x: m.rot90(x, -1, axes=(2, 0))),
    ("broadcast_arrays", (3, 4), lambda m, x: m.broadcast_arrays(x, x[0])),
    ("broadcast_arrays_same", (3, 4), lambda m, x: m.broadcast_arrays(x, x[::-1])),
    ("broadcast_arrays_3", (2, 3, 4), lambda m, x: m.broadcast_arrays(x[:, :1], x[0], x)),
    ("split", (6, 4), lambda m, x: m.split(x, 3)),
    ("split_axis1", (3, 6), lambda m, x: m.split(x, 2, axis=1)),
    ("split_indices", (7, 3), lambda m, x: m.split(x, [2, 5])),
    ("split_indices_odd", (7, 3), lambda m, x: m.split(x, [-2, 1, 9])),
    ("array_split", (7, 3), lambda m, x: m.array_split(x, 3)),
    ("array_split_more", (3, 2), lambda m, x: m.array_split(x, 5)),
    ("array_split_neg_axis", (2, 7), lambda m, x: m.array_split(x, 4, axis=-1)),
    ("hsplit", (3, 6), lambda m, x: m.hsplit(x, 3)),
    ("hsplit_1d", (6,), lambda m, x: m.hsplit(x, [1, 4])),
    ("vsplit", (4, 3), lambda m, x: m.vsplit(x, 2)),
    ("dsplit", (2, 3, 4), lambda m, x: m.dsplit(x, [1, 3])),
    ("unstack", (3, 4), lambda m, x: m.unstack(x)),
    ("unstack_axis", (2, 3, 4), lambda m, x: m.unstack(x, axis=-1)),
    ("real", (3, 4), lambda m, x: m.real(x)),
    ("split_of_flip", (6, 4), lambda m, x: m.split(m.flip(x, 0), 2)),
]

# Read-only views (NumPy's diagonal): the values and a write to the operand seen through them.
READONLY_CASES = [
    ("diagonal", (4, 4), lambda m, x: m.diagonal(x)),
    ("diagonal_rect", (3, 5), lambda m, x: m.diagonal(x)),
    ("diagonal_offset", (4, 5), lambda m, x: m.diagonal(x, 2)),
    ("diagonal_neg_offset", (5, 4), lambda m, x: m.diagonal(x, -1)),
    ("diagonal_offset_past", (3, 4), lambda m, x: m.diagonal(x, 7)),
    ("diagonal_3d", (2, 3, 4), lambda m, x: m.diagonal(x, 1, 2, 0)),
    ("diagonal_3d_neg", (3, 2, 3), lambda m, x: m.diagonal(x, 0, -1, -3)),
    ("diagonal_method", (4, 3), lambda m, x: x.diagonal()),
    ("diagonal_method_kw", (2, 4, 4), lambda m, x: x.diagonal(offset=-1, axis1=1, axis2=2)),
    ("diagonal_of_T", (3, 5), lambda m, x: m.diagonal(x.T, 1)),
    ("diagonal_of_slice", (6, 7), lambda m, x: m.diagonal(x[::-2, 1::2])),
    ("diagonal_of_reshape", (12,), lambda m, x: m.diagonal(x.reshape(3, 4))),
    ("diagonal_of_newaxis", (4,), lambda m, x: m.diagonal(x[None, :], 0, 0, 1)),
    ("linalg_diagonal", (2, 3, 3), lambda m, x: m.linalg.diagonal(x, offset=1)),
    ("diagonal_empty", (0, 3), lambda m, x: m.diagonal(x)),
    ("diagonal_offset_big", (3, 4), lambda m, x: m.diagonal(x, 2**31 - 1)),
    ("diagonal_offset_small", (3, 4), lambda m, x: x.diagonal(-2**31 + 1)),
]


def _as_list(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _bytes_sent():
    return cupynum.runtime_stats()["bytes_sent"]


def _make(shape, dtype):
    n = sample(shape, dtype)
    c = cupynum.array(n)
    cupynum.sync()
    return n, c


def _new_values(shape, dtype, seed):
    return sample(shape, dtype, seed=seed, low=-100 if numpy.dtype(dtype).kind != "u" else 0,
                  high=100)


def _writable_views(rn):
    """The results a write may go through: broadcast ones repeat elements (NumPy warns)."""
    return [i for i, r in enumerate(rn) if r.ndim == 0 or 0 not in r.strides or r.size == 0]


# Components of complex arrays: writable views (numpy.real of a real array is the array).
COMPLEX_CASES = [
    ("real", (3, 4), lambda m, x: m.real(x)),
    ("imag", (3, 4), lambda m, x: m.imag(x)),
    ("real_of_flip", (3, 4), lambda m, x: m.real(m.flip(x, 1))),
    ("imag_T", (2, 3, 4), lambda m, x: m.imag(x).T),
]


@pytest.mark.parametrize("fn_name", ["cupynum", "numpy"])
@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=dtype_id)
@pytest.mark.parametrize("case", COMPLEX_CASES, ids=[c[0] for c in COMPLEX_CASES])
def test_component_function(case, dtype, fn_name):
    test_view_function(case, dtype, fn_name)


def test_component_of_scalars_and_lists():
    check(cupynum.real(1 + 2j), numpy.real(1 + 2j))
    check(cupynum.imag(numpy.complex64(1 + 2j)), numpy.imag(numpy.complex64(1 + 2j)))
    check(cupynum.real([1 + 2j, 3]), numpy.real([1 + 2j, 3]))
    check(cupynum.imag(numpy.array([1 + 2j, 3])), numpy.imag(numpy.array([1 + 2j, 3])))
    n, c = _make((5,), numpy.float64)
    assert cupynum.real(c) is c
    check(cupynum.imag(c), numpy.imag(n))


@pytest.mark.parametrize("fn_name", ["cupynum", "numpy"])
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_view_function(case, dtype, fn_name):
    _, shape, f = case
    n, c = _make(shape, dtype)
    before = _bytes_sent()
    rc = f(cupynum if fn_name == "cupynum" else numpy, c)   # numpy.f(c): __array_function__
    assert _bytes_sent() == before, "creating a view sent bytes"
    rn = f(numpy, n)
    check(rc, rn)
    rcs, rns = _as_list(rc), _as_list(rn)
    for r in rcs:
        assert isinstance(r, cupynum.ndarray) and r.flags.writeable
    # A write through each result is seen in the operand (and through the other results).
    for k, i in enumerate(_writable_views(rns)):
        v = _new_values(rns[i].shape, rns[i].dtype, seed=10 + k)
        rns[i][...] = v
        rcs[i][...] = v
        check(c, n)
    for r_c, r_n in zip(rcs, rns):
        check(r_c, r_n)
    # A write to the operand is seen through every result.
    v = _new_values(shape, dtype, seed=99)
    n[...] = v
    c[...] = v
    for r_c, r_n in zip(rcs, rns):
        check(r_c, r_n)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", READONLY_CASES, ids=[c[0] for c in READONLY_CASES])
def test_readonly_view_function(case, dtype):
    _, shape, f = case
    n, c = _make(shape, dtype)
    before = _bytes_sent()
    rc = f(cupynum, c)
    rc2 = f(numpy, c)
    assert _bytes_sent() == before, "creating a view sent bytes"
    rn = f(numpy, n)
    check(rc, rn)
    check(rc2, rn)
    assert not rc.flags.writeable and not rn.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        rn[...] = 0
    with pytest.raises(ValueError, match="read-only"):
        rc[...] = 0
    v = _new_values(shape, dtype, seed=7)
    n[...] = v
    c[...] = v
    check(rc, rn)
    check(c, n)


def test_writes_of_the_issue():
    """The issue's examples: np.flip(a)[0] = 99 and np.swapaxes(a, 0, 1)[...] = x reach `a`."""
    n, c = _make((3, 4), numpy.float64)
    for a, m in ((n, numpy), (c, numpy), (c, cupynum)):
        m.flip(a)[0] = 99
        m.swapaxes(a, 0, 1)[1] = -1
        m.squeeze(m.expand_dims(a, 0))[2, 2] = 5
        m.moveaxis(m.atleast_2d(a), 0, 1)[3] = 7
    check(c, n)


ERROR_CALLS = [
    ("squeeze_bad_axis", (2, 3), lambda m, x: m.squeeze(x, 2)),
    ("squeeze_not_one", (2, 3), lambda m, x: m.squeeze(x, 0)),
    ("squeeze_repeated", (1, 3), lambda m, x: m.squeeze(x, (0, 0))),
    ("expand_dims_bad", (2, 3), lambda m, x: m.expand_dims(x, 3)),
    ("expand_dims_repeated", (2, 3), lambda m, x: m.expand_dims(x, (0, 0))),
    ("swapaxes_bad", (2, 3), lambda m, x: m.swapaxes(x, 0, 3)),
    ("swapaxes_bad1", (2, 3), lambda m, x: m.swapaxes(x, -3, 0)),
    ("swapaxes_method_bad", (2, 3), lambda m, x: x.swapaxes(0, 2)),
    ("moveaxis_len", (2, 3), lambda m, x: m.moveaxis(x, 0, (0, 1))),
    ("moveaxis_bad", (2, 3), lambda m, x: m.moveaxis(x, 2, 0)),
    ("moveaxis_bad_dest", (2, 3), lambda m, x: m.moveaxis(x, 0, -3)),
    ("moveaxis_repeated", (2, 3), lambda m, x: m.moveaxis(x, (0, 0), (0, 1))),
    ("rollaxis_start", (2, 3), lambda m, x: m.rollaxis(x, 0, 5)),
    ("rollaxis_axis", (2, 3), lambda m, x: m.rollaxis(x, 2)),
    ("permute_dims_bad", (2, 3), lambda m, x: m.permute_dims(x, (0, 0))),
    ("matrix_transpose_1d", (3,), lambda m, x: m.matrix_transpose(x)),
    ("flip_bad", (2, 3), lambda m, x: m.flip(x, 2)),
    ("fliplr_1d", (3,), lambda m, x: m.fliplr(x)),
    ("flipud_0d", (), lambda m, x: m.flipud(x)),
    ("rot90_same", (2, 3), lambda m, x: m.rot90(x, axes=(1, 1))),
    ("rot90_len", (2, 3), lambda m, x: m.rot90(x, axes=(0,))),
    ("rot90_range", (2, 3), lambda m, x: m.rot90(x, axes=(0, 2))),
    ("diagonal_1d", (3,), lambda m, x: m.diagonal(x)),
    ("diagonal_same", (2, 3), lambda m, x: m.diagonal(x, 0, 1, -1)),
    ("diagonal_bad", (2, 3), lambda m, x: m.diagonal(x, 0, 0, 2)),
    ("diagonal_bad1", (2, 3), lambda m, x: x.diagonal(0, -3, 1)),
    ("split_unequal", (5, 3), lambda m, x: m.split(x, 2)),
    ("split_zero", (5, 3), lambda m, x: m.array_split(x, 0)),
    ("hsplit_0d", (), lambda m, x: m.hsplit(x, 1)),
    ("vsplit_1d", (4,), lambda m, x: m.vsplit(x, 2)),
    ("dsplit_2d", (4, 2), lambda m, x: m.dsplit(x, 2)),
    ("unstack_0d", (), lambda m, x: m.unstack(x)),
    ("unstack_bad", (2, 3), lambda m, x: m.unstack(x, axis=2)),
    ("diagonal_offset_overflow", (2, 3), lambda m, x: m.diagonal(x, -2**63)),
    ("diagonal_offset_overflow_method", (2, 3), lambda m, x: x.diagonal(2**40)),
    ("broadcast_arrays_bad", (2, 3), lambda m, x: m.broadcast_arrays(x, x[:, :2])),
]


@pytest.mark.parametrize("case", ERROR_CALLS, ids=[c[0] for c in ERROR_CALLS])
def test_view_function_errors(case):
    _, shape, f = case
    n, c = _make(shape, numpy.float64)
    with pytest.raises(Exception) as en:
        f(numpy, n)
    with pytest.raises(Exception) as ec:
        f(cupynum, c)
    assert type(ec.value) is type(en.value)
    assert str(ec.value) == str(en.value)


# ---- ndarray.flags and ndarray.view --------------------------------------------------------------

FLAG_VIEWS = [
    ("whole", (3, 4), lambda x: x),
    ("T", (3, 4), lambda x: x.T),
    ("rows", (5, 4), lambda x: x[1:3]),
    ("cols", (3, 4), lambda x: x[:, 1:3]),
    ("reversed", (3, 4), lambda x: x[::-1]),
    ("step", (6,), lambda x: x[::2]),
    ("one_col", (3, 4), lambda x: x[:, 1:2]),
    ("one_row", (3, 4), lambda x: x[1:2, :]),
    ("newaxis", (3, 4), lambda x: x[:, None]),
    ("0d", (), lambda x: x),
    ("empty", (0, 3), lambda x: x),
    ("empty_T", (3, 0), lambda x: x.T),
    ("col_vector", (3, 1), lambda x: x),
    ("broadcast", (4,), lambda x: numpy.broadcast_to(x, (3, 4))),
    ("broadcast_arrays", (4,), lambda x: numpy.broadcast_arrays(x, x[:, None])[0]),
    ("diagonal", (3, 3), lambda x: x.diagonal()),
    ("real", (3, 4), lambda x: x.real),
    ("imag", (3, 4), lambda x: x.imag),
    ("3d_swap", (2, 3, 4), lambda x: x.swapaxes(0, 2)),
    ("3d_mid", (2, 3, 4), lambda x: x[:, 1]),
]


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex128, numpy.int8], ids=dtype_id)
@pytest.mark.parametrize("case", FLAG_VIEWS, ids=[c[0] for c in FLAG_VIEWS])
def test_flags(case, dtype):
    name, shape, f = case
    if name == "imag" and numpy.dtype(dtype).kind != "c":
        pytest.skip(".imag of a real array: another change (read-only zeros in NumPy)")
    n, c = _make(shape, dtype)
    fn, fc = f(n).flags, f(c).flags
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)   # NumPy's broadcast_arrays' write warning
        for k in ("c_contiguous", "f_contiguous", "writeable", "aligned", "writebackifcopy"):
            assert getattr(fc, k) == getattr(fn, k), k
        for k in ("C_CONTIGUOUS", "F", "W", "FORC", "FNC", "BEHAVED", "CARRAY"):
            assert fc[k] == fn[k], k
        assert repr(fc).split("\n")[:2] == repr(fn).split("\n")[:2]


def test_flags_set_writeable():
    n, c = _make((3, 4), numpy.float64)
    other = c[...]
    for a in (n, c):
        a.flags.writeable = False
        assert not a.flags.writeable and not a.flags["W"]
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 1
    other[0, 0] = 5          # other views of the store keep writing (NumPy: other arrays, too)
    check(c[0, 0], numpy.float64(5))
    with pytest.raises(KeyError):
        c.flags["NOPE"]
    with pytest.raises(AttributeError):
        c.flags.c_contiguous = False
    with pytest.raises(ValueError):
        c.diagonal().flags.writeable = True


def test_flags_writeable_again():
    """WRITEABLE back to True: allowed while the data's owner is writeable, as NumPy."""
    def run(mod, a):
        out = []
        a.flags.writeable = False
        a.flags.writeable = True            # the owner itself
        a[0, 0] = 7
        a.flags.writeable = False
        c = a[1:]                           # a view of a read-only owner
        with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True of this array"):
            c.flags.writeable = True
        with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True of this array"):
            a.reshape(4, 3).setflags(write=True)
        a.flags.writeable = True
        c.setflags(write=True)              # the owner is writeable again
        c[0, 1] = 9
        d = mod.broadcast_to(a, (2, 3, 4))  # read-only views of a writeable owner
        d.flags.writeable = True
        e = a.diagonal()
        e.flags.writeable = True
        e[1] = 5
        g = a[2:]                           # a view made read-only does not lock its owner
        g.flags.writeable = False
        a.flags.writeable = False
        a.flags.writeable = True
        g.flags.writeable = True
        g[0, 0] = 3
        out += [d.flags.writeable, e.flags.writeable, g.flags.writeable, c.flags.writeable]
        return out

    n, c = _make((3, 4), numpy.float64)
    n = n.copy()                            # an array that owns its data, as c's store
    assert run(numpy, n) == run(cupynum, c)
    check(c, n)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_view_same_dtype(dtype):
    n, c = _make((3, 4), dtype)
    before = _bytes_sent()
    views = [(c.view(), n.view()), (c[::-1].view(dtype), n[::-1].view(dtype)),
             (c.T.view(numpy.dtype(dtype)), n.T.view(numpy.dtype(dtype)))]
    assert _bytes_sent() == before
    for k, (vc, vn) in enumerate(views):
        check(vc, vn)
        vc[1] = vn[1] = _new_values(vn[1].shape, dtype, seed=k)
        check(c, n)
    n[...] = c[...] = _new_values((3, 4), dtype, seed=5)
    for vc, vn in views:
        check(vc, vn)


_SAME_SIZE = {1: "?bB", 2: "hHe", 4: "iIf", 8: "qQdF", 16: "D"}


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_view_other_dtype_of_the_same_size(dtype):
    """view(dtype) of another dtype of the element's size reinterprets the bytes in place: a
    view (writes seen both ways), of any layout and of a complex component, moving nothing."""
    size = numpy.dtype(dtype).itemsize
    n, c = _make((6, 4), dtype)
    before = _bytes_sent()
    pairs = []
    for k, ch in enumerate(_SAME_SIZE[size]):
        t = numpy.dtype(ch)
        if t == numpy.dtype(dtype) or (t == numpy.bool_ and numpy.dtype(dtype) != numpy.uint8):
            continue             # a bool view of bytes other than 0/1: NumPy's own oddity
        for f in (lambda x: x, lambda x: x.T, lambda x: x[::-2, 1:3], lambda x: x[2]):
            pairs.append((f(c).view(t), f(n).view(t), t))
    if numpy.dtype(dtype).kind == "c":
        part = numpy.dtype(numpy.dtype(dtype).char.lower())
        for ch in _SAME_SIZE[part.itemsize]:
            if ch not in "?eF" and numpy.dtype(ch) != part:
                pairs.append((c.imag.view(ch), n.imag.view(ch), numpy.dtype(ch)))
    assert _bytes_sent() == before
    for k, (vc, vn, t) in enumerate(pairs):
        assert vc.dtype == vn.dtype and vc.shape == vn.shape
        numpy.testing.assert_array_equal(_raw(numpy.asarray(vc)), _raw(vn))
        if t != numpy.bool_:
            vn[...] = vc[...] = _new_values(vn.shape, t, seed=k + 1)
        numpy.testing.assert_array_equal(_raw(numpy.asarray(c)), _raw(n))


def _raw(x):
    """The bytes of x's elements in C order (NaN payloads and -0.0 compared as bits)."""
    return numpy.ascontiguousarray(x).view(numpy.uint8)


@pytest.mark.parametrize("dtype,to", [
    (numpy.float64, numpy.int32), (numpy.float64, numpy.uint8), (numpy.complex128, numpy.float64),
    (numpy.complex64, numpy.int16), (numpy.float32, numpy.float64), (numpy.int8, numpy.complex64),
    (numpy.uint16, numpy.int64), (numpy.int64, numpy.complex128)])
def test_view_of_another_size(dtype, to):
    """view(dtype) of another size, as NumPy: the last axis (contiguous) gets shape * old / new
    elements, the bytes are the same (a view: writes seen both ways, nothing moved); NumPy's
    errors for a 0-d array, a strided last axis and a last axis of the wrong byte count."""
    n, c = _make((6, 16), dtype)
    forms = [lambda x: x, lambda x: x[1:5], lambda x: x[::-2], lambda x: x[2],
             lambda x: x[:, 8:], lambda x: x[None, 3:5, :8]]
    with warnings.catch_warnings():
        warnings.simplefilter("error", cupynum.FallbackWarning)   # views, not NumPy's copies
        before = _bytes_sent()
        pairs = [(f(c).view(to), f(n).view(to)) for f in forms]
        assert _bytes_sent() == before
    for k, (vc, vn) in enumerate(pairs):
        assert vc.dtype == vn.dtype and vc.shape == vn.shape
        numpy.testing.assert_array_equal(_raw(numpy.asarray(vc)), _raw(vn))
        vn[...] = vc[...] = _new_values(vn.shape, numpy.dtype(to), seed=k + 3)
        numpy.testing.assert_array_equal(_raw(numpy.asarray(c)), _raw(n))
        numpy.testing.assert_array_equal(_raw(numpy.asarray(vc)), _raw(vn))
    # the view is a view of a view: back to the original dtype
    numpy.testing.assert_array_equal(_raw(numpy.asarray(c.view(to).view(dtype))), _raw(n))
    # element-wise work through it, and a reduction of it
    check(c.view(to)[1:3] + 0, n.view(to)[1:3] + 0)
    bad = [lambda x: x[0, 0].view(to), lambda x: x[:, ::2].view(to), lambda x: x.T.view(to),
           lambda x: x[:, :3].view(to)]
    for f in bad:
        try:
            f(n)
        except ValueError as e:
            with pytest.raises(ValueError, match=re.escape(str(e))):
                f(c)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", cupynum.FallbackWarning)
                numpy.testing.assert_array_equal(_raw(numpy.asarray(f(c))), _raw(f(n)))


@pytest.mark.parametrize("dtype,field,offset", [
    (numpy.float64, numpy.int64, 0), (numpy.float64, numpy.float64, 0),
    (numpy.complex128, numpy.float64, 0), (numpy.complex128, numpy.float64, 8),
    (numpy.complex128, numpy.int64, 8), (numpy.complex64, numpy.float32, 4),
    (numpy.int32, numpy.float32, 0)])
def test_getfield_setfield_views(dtype, field, offset):
    n, c = _make((5, 4), dtype)
    before = _bytes_sent()
    fc, fn = c.getfield(field, offset), n.getfield(field, offset)
    assert _bytes_sent() == before
    numpy.testing.assert_array_equal(_raw(numpy.asarray(fc)), _raw(fn))
    fc[1:3] = fn[1:3] = _new_values((2, 4), field, seed=3)          # written through the view
    numpy.testing.assert_array_equal(_raw(numpy.asarray(c)), _raw(n))
    c.setfield(_new_values((4,), field, seed=4)[0], field, offset)
    n.setfield(_new_values((4,), field, seed=4)[0], field, offset)
    numpy.testing.assert_array_equal(_raw(numpy.asarray(c)), _raw(n))


def test_getfield_errors_and_other_fields():
    n, c = _make((3,), numpy.int64)
    for args in ((numpy.int32, 6), (numpy.int32, -1), (numpy.complex128, 0)):
        with pytest.raises(ValueError) as en:
            n.getfield(*args)
        with pytest.raises(ValueError) as ec:
            c.getfield(*args)
        assert str(ec.value) == str(en.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cupynum.FallbackWarning)
        check(c.getfield(numpy.int32, 4), n.getfield(numpy.int32, 4))   # NumPy's, on a copy
        c.setfield(9, numpy.int16, 2)
    n.setfield(9, numpy.int16, 2)
    check(c, n)


def test_setflags_device_to_device():
    n, c = _make((3, 4), numpy.float64)
    for a in (n, c):
        a.setflags(write=False)
        assert not a.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 1
        a.setflags(align=True, uic=False)
        with pytest.raises(ValueError, match="cannot set WRITEBACKIFCOPY flag to True"):
            a.setflags(uic=True)
        assert a.device == "cpu" and a.to_device("cpu") is a
    for args, kw in ((("gpu",), {}), ((None,), {}), (("cpu",), {"stream": 1})):
        with pytest.raises(Exception) as en:
            n.to_device(*args, **kw)
        with pytest.raises(type(en.value)) as ec:
            c.to_device(*args, **kw)
        assert str(ec.value) == str(en.value)
    check(c, n)


def test_views_of_partitioned_large():
    """Bigger arrays (several tiles per rank under mpirun): flips, diagonals and splits written
    both ways, no bytes sent to create them."""
    n = numpy.arange(40 * 30, dtype=numpy.float64).reshape(40, 30)
    c = cupynum.array(n)
    cupynum.sync()
    before = _bytes_sent()
    pairs = [(numpy.flip(n), cupynum.flip(c)), (numpy.rot90(n), cupynum.rot90(c)),
             (numpy.diagonal(n, 3), cupynum.diagonal(c, 3)),
             (numpy.split(n, 5, axis=1)[3], cupynum.split(c, 5, axis=1)[3]),
             (numpy.moveaxis(n[::3, None], 1, 0), cupynum.moveaxis(c[::3, None], 1, 0))]
    assert _bytes_sent() == before
    for vn, vc in pairs:
        check(vc, vn)
    for vn, vc in pairs:
        if vn.flags.writeable:
            vn[...] = vc[...] = -vn
    check(c, n)
    n *= 2
    c *= 2
    for vn, vc in pairs:
        check(vc, vn)
    check(cupynum.sum(cupynum.diagonal(c, -2)), numpy.sum(numpy.diagonal(n, -2)))
