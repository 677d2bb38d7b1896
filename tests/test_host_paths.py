"""Short host paths of small calls (branch host36): each skips Python layers or repeated
resolution for the common form of a call, and must give NumPy's results (values, dtype, shape,
views where NumPy's are views) and NumPy's errors for every form it accepts, and decline the rest
to the general path.  Each form runs twice: the second call takes a path the first may have
cached."""

import numpy
import pytest

import cupynum

from conftest import ALL_DTYPES, check, dtype_id, same_error, sample

# ---- ufunc.reduce with a cached resolution (_ufunc.reduce's _PLAIN_REDUCE) ---------------------

REDUCE_OPS = ["add", "multiply", "maximum", "minimum", "logical_and", "logical_or", "fmax",
              "bitwise_or", "subtract"]
REDUCE_AXES = [0, 1, -1, -2, None, (1,), (-2,), (0, 1)]


def _tolerance(dt):
    return {"e": 1e-2, "f": 1e-5, "F": 1e-5}.get(numpy.dtype(dt).char, 1e-12)


def _reduce_both(name, ref, x, **kw):
    """The NumPy and cupynum outcomes of name.reduce(., **kw): (result, None) or (None, exc)."""
    out = []
    for mod, a in ((numpy, ref), (cupynum, x)):
        try:
            out.append((getattr(mod, name).reduce(a, **kw), None))
        except Exception as e:   # noqa: BLE001 -- the two must raise alike
            out.append((None, e))
    return out


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", REDUCE_OPS)
def test_reduce_forms_twice(name, dtype):
    for shape in [(4, 5), (1, 6), (0, 3), (3, 0), (7,)]:
        ref = sample(shape, dtype, seed=5, low=1, high=3)
        x = cupynum.array(ref)
        for axis in REDUCE_AXES + [2, -3]:
            for initial in [numpy._NoValue, True, 0, 2, -1, -1.0, 2.5]:
                kw = {"axis": axis}
                if initial is not numpy._NoValue:
                    kw["initial"] = initial
                for _ in range(2):
                    (n, en), (c, ec) = _reduce_both(name, ref, x, **kw)
                    if en is not None:
                        assert type(ec) is type(en), (shape, kw, en, ec)
                        assert str(ec) == str(en), (shape, kw)
                        continue
                    assert ec is None, (shape, kw, ec)
                    tol = _tolerance(n.dtype) if name in ("add", "multiply") and \
                        n.dtype.kind in "fc" else 0
                    check(c, n, rtol=tol)


def test_reduce_fast_form_declines_what_it_must():
    ref = sample((3, 4), numpy.float64, seed=1)
    x = cupynum.array(ref)
    for _ in range(2):   # cached after the first call
        check(cupynum.add.reduce(x, axis=1), numpy.add.reduce(ref, axis=1))
    # the other keywords still take the general path, with NumPy's results
    check(cupynum.add.reduce(x, axis=1, keepdims=True), numpy.add.reduce(ref, axis=1, keepdims=True))
    check(cupynum.add.reduce(x, axis=1, dtype=numpy.float32),
          numpy.add.reduce(ref, axis=1, dtype=numpy.float32), rtol=1e-6)
    w = ref > 0
    check(cupynum.add.reduce(x, axis=1, where=cupynum.array(w)), numpy.add.reduce(ref, axis=1, where=w),
          rtol=1e-12)
    out, nout = cupynum.zeros(3), numpy.zeros(3)
    assert cupynum.add.reduce(x, axis=1, out=out) is out
    check(out, numpy.add.reduce(ref, axis=1, out=nout), rtol=1e-12)
    # bad axes: NumPy's errors, also once the dtype is cached
    for axis in [2, -3, True, 1.0, (None,), (0, 0)]:
        same_error(lambda: numpy.add.reduce(ref, axis=axis), lambda: cupynum.add.reduce(x, axis=axis))
    # a NumPy array and a 0-d array: NumPy's results
    check(cupynum.add.reduce(ref, axis=0), numpy.add.reduce(ref, axis=0), rtol=1e-12)
    check(cupynum.add.reduce(cupynum.array(2.0), axis=0), numpy.add.reduce(numpy.array(2.0), axis=0))


def test_reduce_initial_types_are_not_confused():
    """initial=-1.0 on uint8 wraps while initial=-1 raises NumPy's OverflowError: the cache keys
    on the initial's type."""
    ref = numpy.arange(6, dtype=numpy.uint8).reshape(2, 3)
    x = cupynum.array(ref)
    for _ in range(2):
        with numpy.errstate(all="ignore"):
            try:
                n = numpy.maximum.reduce(ref, axis=1, initial=-1.0)
            except Exception as e:   # noqa: BLE001
                n = e
        if isinstance(n, Exception):
            with pytest.raises(type(n)):
                cupynum.maximum.reduce(x, axis=1, initial=-1.0)
        else:
            with numpy.errstate(all="ignore"):
                check(cupynum.maximum.reduce(x, axis=1, initial=-1.0), n)
        same_error(lambda: numpy.maximum.reduce(ref, axis=1, initial=-1),
                   lambda: cupynum.maximum.reduce(x, axis=1, initial=-1))


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int64, numpy.bool_,
                                   numpy.complex128], ids=dtype_id)
def test_reduction_functions_on_the_reduce_path(dtype):
    ref = sample((6, 5), dtype, seed=2)
    if numpy.dtype(dtype).kind == "f":
        ref[1, 2] = ref[4, 0] = numpy.nan
        ref[:, 3] = numpy.nan
    x = cupynum.array(ref)
    for _ in range(2):
        for axis in [0, 1, -1, None, (1,)]:
            check(cupynum.any(x > 2, axis=axis), numpy.any(ref > 2, axis=axis))
            check(cupynum.all(x > -4, axis=axis), numpy.all(ref > -4, axis=axis))
            check(cupynum.maximum.reduce(x, axis=axis), numpy.maximum.reduce(ref, axis=axis))
            if numpy.dtype(dtype).kind in "fc":
                check(cupynum.linalg.norm(x, axis=axis), numpy.linalg.norm(ref, axis=axis),
                      rtol=1e-5)
            if numpy.dtype(dtype).kind != "b":
                with numpy.errstate(all="ignore"):
                    import warnings
                    with warnings.catch_warnings(record=True) as wn:
                        warnings.simplefilter("always")
                        n = numpy.nanmax(ref, axis=axis)
                    with warnings.catch_warnings(record=True) as wc:
                        warnings.simplefilter("always")
                        c = cupynum.nanmax(x, axis=axis)
                check(c, n)
                assert [str(w.message) for w in wc] == [str(w.message) for w in wn]


# ---- ndarray.reshape's C method (methods_views.c) -------------------------------------------------

RESHAPE_VIEWS = ["x", "x[:, ::2]", "x[::2, ::2]", "x[::-1]", "x.T", "x[1:3]", "x[:, 1:2]"]
RESHAPE_ARGS = [(-1,), ((-1,),), ([-1],), (2, -1), ((-1, 2),), (-1, 1), ((),), (1, -1, 1),
                (0, -1), (-1, 0), (3, 7), (-2,), (-1, -1), (2 ** 70,), (-1, 2 ** 70),
                (numpy.int64(-1),), ((2.0, -1),), ("a",), (), ((1, 2), 3), (2.0,), (None,)]


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int8, numpy.bool_, numpy.complex64],
                         ids=dtype_id)
@pytest.mark.parametrize("view", RESHAPE_VIEWS)
@pytest.mark.parametrize("rows", [4, 1, 0])
def test_reshape_forms_as_numpy(view, dtype, rows):
    ref_x = sample((rows, 6), dtype, seed=4)
    x = cupynum.array(ref_x)
    ref_v, v = eval(view, {"x": ref_x}), eval(view, {"x": x})
    for args in RESHAPE_ARGS:
        try:
            n = ref_v.reshape(*args)
        except Exception as e:   # noqa: BLE001 -- NumPy's error, word for word
            with pytest.raises(type(e)) as got:
                v.reshape(*args)
            assert str(got.value) == str(e), (view, args)
            continue
        c = v.reshape(*args)
        check(c, n)
        # a view where NumPy's is a view: writes through it reach the array
        is_view = numpy.shares_memory(n, ref_x)
        if n.size:   # (NumPy's empty arrays share no memory)
            assert cupynum._core._shares_store(c, x) == is_view, (view, args)
        if is_view and n.size:
            n.flat[0] += 1
            c.flat[0] += 1
            check(x, ref_x)


def test_reshape_keywords_and_subclasses_take_the_general_path():
    ref_x = sample((4, 6), numpy.float64, seed=4)
    x = cupynum.array(ref_x)
    for kw in [{"order": "F"}, {"order": "C"}, {"copy": True}, {"order": "A"}]:
        check(x[:, ::2].reshape(-1, **kw), ref_x[:, ::2].reshape(-1, **kw))
        check(x.reshape((3, 8), **kw), ref_x.reshape((3, 8), **kw))
    same_error(lambda: ref_x[::2, ::2].reshape(-1, copy=False),
               lambda: x[::2, ::2].reshape(-1, copy=False))
    same_error(lambda: ref_x.reshape(-1, order="Z"), lambda: x.reshape(-1, order="Z"))
    same_error(lambda: ref_x.reshape(-1, bad=1), lambda: x.reshape(-1, bad=1))
    # a queued value is reshaped (the copy sees it)
    y = x * 2
    check(y[:, ::2].reshape(-1), (ref_x * 2)[:, ::2].reshape(-1))


# ---- clip of three arrays of one dtype (_helpers._clip_arrays) -------------------------------------

CLIP_SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((3, 4), (1,), (1, 1)),
               ((5,), (), ()), ((), (), ()), ((1,), (5,), (5,)), ((0, 2), (2,), (0, 2)),
               ((3, 4), (3,), (4,)), ((2, 3), (2, 3), (3, 2))]


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iuf"] + [numpy.dtype("c16")],
                         ids=dtype_id)
@pytest.mark.parametrize("shapes", CLIP_SHAPES, ids=str)
def test_clip_of_arrays_as_numpy(dtype, shapes):
    sa, sl, sh = shapes
    ref_a, ref_lo, ref_hi = (sample(s, dtype, seed=k) for k, s in enumerate(shapes))
    if dtype.kind == "f":   # NaN and signed zeros in the data and the bounds
        for r, v in ((ref_a, numpy.nan), (ref_lo, -0.0), (ref_hi, 0.0), (ref_a, -0.0),
                     (ref_lo, numpy.nan)):
            if r.size:
                r.flat[r.size // 2] = v
    a, lo, hi = (cupynum.array(r) for r in (ref_a, ref_lo, ref_hi))
    for _ in range(2):
        try:
            with numpy.errstate(all="ignore"):
                n = numpy.clip(ref_a, ref_lo, ref_hi)
        except Exception as e:   # noqa: BLE001
            with pytest.raises(type(e)) as got:
                cupynum.clip(a, lo, hi)
            assert str(got.value) == str(e)
            continue
        c = cupynum.clip(a, lo, hi)
        check(c, n)
        if dtype.kind == "f":
            assert numpy.array_equal(numpy.signbit(numpy.asarray(c)), numpy.signbit(n))


def test_clip_of_arrays_declines_mixed_dtypes_and_keywords():
    ref = sample((6,), numpy.float64, seed=1)
    lo32, hi = sample((6,), numpy.float32, seed=2), sample((6,), numpy.float64, seed=3) + 4
    a, clo, chi = cupynum.array(ref), cupynum.array(lo32), cupynum.array(hi)
    check(cupynum.clip(a, clo, chi), numpy.clip(ref, lo32, hi))
    check(cupynum.clip(cupynum.array(ref.astype(numpy.int32)), clo, chi),
          numpy.clip(ref.astype(numpy.int32), lo32, hi))
    out, nout = cupynum.zeros(6), numpy.zeros(6)
    assert cupynum.clip(a, chi - 8, chi, out=out) is out
    check(out, numpy.clip(ref, hi - 8, hi, out=nout))
    same_error(lambda: numpy.clip(ref, hi, hi, min=hi), lambda: cupynum.clip(a, chi, chi, min=chi))


# ---- repeat with a Python int count (_joins.repeat) -----------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16, numpy.bool_, numpy.complex128],
                         ids=dtype_id)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2), (0,), (0, 3), ()], ids=str)
def test_repeat_int_counts_as_numpy(dtype, shape):
    ref = sample(shape, dtype, seed=6)
    x = cupynum.array(ref)
    views = [(ref, x)] + ([(ref[::-1], x[::-1])] if ref.ndim else [])
    for rv, cv in views:
        for r in [0, 1, 2, 5, True, numpy.int64(3), -1, 2.7]:
            for axis in [None, 0, -1, 1, 2, -3, 5]:
                try:
                    n = numpy.repeat(rv, r, axis=axis)
                except Exception as e:   # noqa: BLE001
                    with pytest.raises(type(e)) as got:
                        cupynum.repeat(cv, r, axis=axis)
                    assert str(got.value) == str(e), (r, axis)
                    continue
                check(cupynum.repeat(cv, r, axis=axis), n)
                check(cv.repeat(r, axis=axis), n)


# ---- linspace of Python numbers (_creation.linspace) ----------------------------------------------

LINSPACE_ENDS = [(0.0, 1.0), (0, 1), (-3, 7.5), (2.5, -1.25), (1.0, 1.0), (0, 0), (1e300, -1e300),
                 (3, 2 ** 60), (True, 2.0), (-0.0, 0.0), (float("inf"), 1.0), (1, float("nan")),
                 (numpy.float32(1.5), 2.0), (numpy.int64(3), 7)]


@pytest.mark.parametrize("ends", LINSPACE_ENDS, ids=str)
def test_linspace_of_numbers_as_numpy(ends):
    start, stop = ends
    for num in [0, 1, 2, 7, 50]:
        for endpoint in [True, False]:
            for _ in range(2):
                kw = dict(num=num, endpoint=endpoint)
                with numpy.errstate(all="ignore"):
                    n, nstep = numpy.linspace(start, stop, retstep=True, **kw)
                    c, cstep = cupynum.linspace(start, stop, retstep=True, **kw)
                    check(c, n)
                    assert numpy.array_equal(numpy.signbit(numpy.asarray(c)), numpy.signbit(n))
                    assert type(cstep) is type(nstep), (type(cstep), type(nstep))
                    assert numpy.array_equal(cstep, nstep, equal_nan=True)
                    check(cupynum.linspace(start, stop, **kw), numpy.linspace(start, stop, **kw))
    for kw in [dict(dtype=numpy.float32), dict(dtype=int), dict(axis=-1)]:
        check(cupynum.linspace(start, stop, 5, **kw), numpy.linspace(start, stop, 5, **kw))
    for kw in [dict(num=-1), dict(num=2.5), dict(axis=1)]:
        same_error(lambda: numpy.linspace(start, stop, **kw), lambda: cupynum.linspace(start, stop, **kw))


# ---- searchsorted of two vectors of one dtype (_sorting.searchsorted) -----------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_searchsorted_vectors_as_numpy(dtype):
    ref_a = numpy.sort(sample((40,), dtype, seed=7))
    ref_v = sample((25,), dtype, seed=8)
    if dtype.kind in "fc":
        ref_a[-3:] = numpy.nan
        ref_v[::4] = numpy.nan
    a, v = cupynum.array(ref_a), cupynum.array(ref_v)
    for sl in [slice(None), slice(None, None, 3), slice(5, 5)]:
        for side in ["left", "right", "l", "R", "bad"]:
            for ra, ca, rv, cv in [(ref_a[sl], a[sl], ref_v, v), (ref_a, a, ref_v[sl], v[sl])]:
                try:
                    n = numpy.searchsorted(ra, rv, side=side)
                except Exception as e:   # noqa: BLE001
                    with pytest.raises(type(e)):
                        cupynum.searchsorted(ca, cv, side=side)
                    continue
                check(cupynum.searchsorted(ca, cv, side=side), n)
                check(ca.searchsorted(cv, side=side), n)
    # other dtypes, shapes and a sorter: the general path
    check(cupynum.searchsorted(a, v[:4].astype(numpy.float64)),
          numpy.searchsorted(ref_a, ref_v[:4].astype(numpy.float64)))
    check(cupynum.searchsorted(a, v[:6].reshape(2, 3)), numpy.searchsorted(ref_a, ref_v[:6].reshape(2, 3)))
    check(cupynum.searchsorted(a, v[3]), numpy.searchsorted(ref_a, ref_v[3]))


# ---- bincount's bounds read by full_reduce (_bincount.bincount) ------------------------------------

@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "biu"], ids=dtype_id)
def test_bincount_bounds_as_numpy(dtype):
    ref = sample((30,), dtype, seed=9, low=0 if dtype.kind != "b" else None, high=20)
    x = cupynum.array(ref)
    for sl in [slice(None), slice(None, None, -2), slice(3, 3)]:
        for minlength in [0, 5, 40]:
            check(cupynum.bincount(x[sl], minlength=minlength), numpy.bincount(ref[sl], minlength=minlength))
            w = numpy.linspace(0, 1, len(ref[sl]))
            check(cupynum.bincount(x[sl], weights=cupynum.array(w), minlength=minlength),
                  numpy.bincount(ref[sl], weights=w, minlength=minlength))
    if dtype.kind == "i":
        bad = ref.copy()
        bad[7] = -1
        same_error(lambda: numpy.bincount(bad), lambda: cupynum.bincount(cupynum.array(bad)))


# ---- diag of a matrix (_construct.diag) -----------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32, numpy.bool_, numpy.complex64],
                         ids=dtype_id)
@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (0, 3), (1, 1)], ids=str)
def test_diag_of_matrices_as_numpy(dtype, shape):
    ref = sample(shape, dtype, seed=10)
    x = cupynum.array(ref)
    for rv, cv in [(ref, x), (ref.T, x.T), (ref[::-1, ::2], x[::-1, ::2])]:
        for k in [0, 1, -1, 3, -5, 7, numpy.int64(2), True]:
            n, c = numpy.diag(rv, k), cupynum.diag(cv, k)
            check(c, n)
            assert c.flags.writeable == n.flags.writeable
            if n.size:
                assert cupynum._core._shares_store(c, x)
    for k in [1.5, "a", None]:
        same_error(lambda: numpy.diag(ref, k), lambda: cupynum.diag(x, k))


# ---- contiguity in C (_core.contiguous): flags, ravel, ascontiguousarray --------------------------

CONTIG_VIEWS = ["x", "x.T", "x[::2]", "x[:, ::2]", "x[:, :1]", "x[:1]", "x[:0]", "x[:, 1:1]",
                "x[::-1]", "x[..., None]", "x[None, :, 1]", "x[2:3, :].T", "x.real", "x.imag",
                "x[1]", "x[1, 2]"]


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.float64), numpy.dtype(numpy.int8),
                                   numpy.dtype(numpy.complex128)], ids=dtype_id)
@pytest.mark.parametrize("view", CONTIG_VIEWS)
def test_contiguity_flags_ravel_and_ascontiguousarray(dtype, view):
    ref_x = sample((4, 6), dtype, seed=11)
    x = cupynum.array(ref_x)
    rv, cv = eval(view, {"x": ref_x}), eval(view, {"x": x})
    if not isinstance(rv, numpy.ndarray) or view == "x.imag" and dtype.kind != "c":
        # (x[1, 2] is a scalar in both; a real array's imag is NumPy's new zeros, cupynum's
        # broadcast zero: a flags difference older than this path, reported)
        return
    assert cv.flags.c_contiguous == rv.flags.c_contiguous
    assert cv.flags.f_contiguous == rv.flags.f_contiguous
    for order in "CFAK":
        check(cv.ravel(order), rv.ravel(order))
    n, c = numpy.ascontiguousarray(rv), cupynum.ascontiguousarray(cv)
    check(c, n)
    assert c.flags.c_contiguous
    assert (c is cv) == (n is rv)
    check(cupynum.ascontiguousarray(cv, dtype=numpy.float32),
          numpy.ascontiguousarray(rv, dtype=numpy.float32))


# ---- matmul of stacks of one batch shape (_products._matmul) --------------------------------------

MATMUL_SHAPES = [((2, 3, 4), (2, 4, 5)), ((5, 8, 8), (5, 8, 8)), ((2, 2, 3, 4), (2, 2, 4, 1)),
                 ((0, 3, 4), (0, 4, 2)), ((2, 3, 0), (2, 0, 2)), ((1, 3, 4), (2, 4, 5)),
                 ((2, 3, 4), (2, 5, 4)), ((2, 3, 4), (3, 4, 5)), ((2, 3, 4), (4, 5))]


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int32, numpy.bool_,
                                   numpy.complex128], ids=dtype_id)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_of_stacks_as_numpy(dtype, shapes):
    ra, rb = sample(shapes[0], dtype, seed=12), sample(shapes[1], dtype, seed=13)
    a, b = cupynum.array(ra), cupynum.array(rb)
    tol = 1e-5 if numpy.dtype(dtype) in (numpy.float32,) else 1e-12
    pairs = [(ra, rb, a, b)]
    if ra.ndim == rb.ndim:   # transposed stacks: the same batch shape, strided matrices
        t = tuple(range(ra.ndim - 2)) + (ra.ndim - 1, ra.ndim - 2)
        pairs.append((rb.transpose(t), ra.transpose(t), b.transpose(t), a.transpose(t)))
    for na_, nb_, ca, cb in pairs:
        for _ in range(2):
            try:
                n = na_ @ nb_
            except Exception as e:   # noqa: BLE001
                with pytest.raises(type(e)) as got:
                    ca @ cb
                assert str(got.value) == str(e)
                continue
            check(ca @ cb, n, rtol=tol if numpy.dtype(dtype).kind in "fc" else 0)
            check(cupynum.matmul(ca, cb), n, rtol=tol if numpy.dtype(dtype).kind in "fc" else 0)
    if ra.ndim == rb.ndim and shapes[0][-1] == shapes[1][-2] and shapes[0][:-2] == shapes[1][:-2] \
            and numpy.dtype(dtype).kind != "c":   # mixed dtypes: the general path's promotion
        check(a @ b.astype(numpy.float32), ra @ rb.astype(numpy.float32), rtol=1e-5)


# ---- ufunc.at(vector, index vector, Python number) (_ufunc.at) ------------------------------------

AT_OPS = ["add", "subtract", "multiply", "maximum", "minimum", "true_divide", "floor_divide",
          "bitwise_or", "power", "fmod"]


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int64, numpy.int8,
                                   numpy.uint16, numpy.bool_, numpy.complex128], ids=dtype_id)
@pytest.mark.parametrize("name", AT_OPS)
def test_ufunc_at_with_python_numbers_as_numpy(name, dtype):
    ref = sample((12,), dtype, seed=14, low=1, high=5)
    for idx in [numpy.array([1, 5, 7]), numpy.array([3, 3, -1, 0, 3]), numpy.array([], numpy.int64),
                numpy.array([2, 12]), numpy.array([-13]), numpy.array([1, 2], numpy.int32)]:
        # (power by 2**70: NumPy's own object loop computes a huge integer power, for ever)
        for b in [2, 1.5, -1, 300, True] + ([] if name == "power" else [2 ** 70]):
            for _ in range(2):
                n, c = ref.copy(), cupynum.array(ref)
                ci = cupynum.array(idx)
                try:
                    with numpy.errstate(all="ignore"):
                        getattr(numpy, name).at(n, idx, b)
                except Exception as e:   # noqa: BLE001
                    with pytest.raises(type(e)) as got:
                        with numpy.errstate(all="ignore"):
                            getattr(cupynum, name).at(c, ci, b)
                    assert str(got.value) == str(e), (idx, b)
                    check(c, ref)   # nothing modified
                    continue
                with numpy.errstate(all="ignore"):
                    assert getattr(cupynum, name).at(c, ci, b) is None
                check(c, n, rtol=1e-6 if dtype in (numpy.float32,) else 0)


def test_ufunc_at_read_only_and_strided():
    ref = numpy.arange(10.0)
    x = cupynum.array(ref)
    # (a read-only array: NumPy 2.4's add.at writes into it; cupynum refuses, as older NumPys)
    ro = cupynum.array(ref)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        cupynum.add.at(ro, cupynum.array([1]), 1.0)
    check(ro, ref)
    n, c = ref.copy(), cupynum.array(ref)
    numpy.add.at(n[::2], numpy.array([0, 4, 0]), 2.0)
    cupynum.add.at(c[::2], cupynum.array([0, 4, 0]), 2.0)
    check(c, n)


# ---- norm along one axis of a real float array (linalg.norm) -------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64], ids=dtype_id)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (0, 3)], ids=str)
def test_norm_along_an_axis_as_numpy(dtype, shape):
    ref = sample(shape, dtype, seed=15)
    x = cupynum.array(ref)
    tol = {2: 2e-3, 4: 1e-6}.get(numpy.dtype(dtype).itemsize, 1e-13)
    for axis in range(-len(shape), len(shape)):
        check(cupynum.linalg.norm(x, axis=axis), numpy.linalg.norm(ref, axis=axis), rtol=tol)
        check(cupynum.linalg.norm(x.T, axis=axis), numpy.linalg.norm(ref.T, axis=axis), rtol=tol)
    for axis in [len(shape), -len(shape) - 1]:
        with pytest.raises(numpy.exceptions.AxisError):
            numpy.linalg.norm(ref, axis=axis)
        with pytest.raises(numpy.exceptions.AxisError):
            cupynum.linalg.norm(x, axis=axis)
