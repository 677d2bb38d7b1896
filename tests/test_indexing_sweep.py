"""The advanced-indexing sweep (issue 15): random keys of every form NumPy takes, over arrays of
0-4 dimensions (0-size and size-1 dimensions included), dtypes and views, for get, set and
augmented set (and ufunc.at, ndarray.flat, ix_ beside them), compared with NumPy.

Each case is drawn from its own seed (the case number): an array (or a view of a larger base:
strided, reversed, transposed), a key built of integer arrays (every integer dtype, negatives,
repeats, broadcast together, sometimes out of bounds or not broadcasting), boolean masks (over
one or several dimensions, 0-d, sometimes of the wrong shape), nested lists, slices, integers,
None and Ellipsis, alone or in a tuple, and values of every kind of shape (scalar, broadcastable,
exact, wrong) given as NumPy arrays, cupynum arrays, Python scalars or nested lists.  What is
compared: the result (type, dtype, shape, values), whether it is a copy or a view (a later write
to the array shows through a view only), the base array after every assignment, and where NumPy
raises: the exception type, its message word for word and the arrays unchanged.

tests/test_indexing.py and tests/test_indexing_adv.py test each form and its bytes moved by
hand; this file draws the combinations.  Runs on one rank and under mpirun with
CUPYNUM_MIN_TILE=1 (every array partitioned); every rank checks every result."""

import os
import warnings

import numpy
import pytest

import cupynum
from conftest import check, sample

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

CASES = int(os.environ.get("SWEEP_CASES", 600))     # 30000 pass too
DTYPES = [numpy.dtype(t) for t in ("?", "i1", "i4", "i8", "u2", "f4", "f8", "c16")]
INDEX_DTYPES = [numpy.dtype(t) for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8",
                                         numpy.intp)]
DIMS = [0, 1, 1, 2, 3, 3, 4, 5]
BSHAPES = [(), (1,), (2,), (3,), (4,), (2, 1), (1, 3), (2, 3), (0,)]


class _Case:
    """One drawn case: the NumPy data and key, and how the cupynum side is made from them."""

    def __init__(self, seed):
        self.rng = numpy.random.default_rng(9173 + seed)
        self.seed = seed

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p):
        return bool(self.rng.random() < p)


# ---- arrays and views ---------------------------------------------------------------------

def _array(case):
    """(base, view function, view shape): view(base) is the array indexed; base is what an
    assignment must reach."""
    nd = int(case.rng.integers(0, 5))
    shape = tuple(case.pick(DIMS) for _ in range(nd))
    if nd >= 3 and numpy.prod(shape) > 120:
        shape = shape[:2] + tuple(min(d, 2) for d in shape[2:])
    dtype = case.pick(DTYPES)
    kind = case.pick(["base", "base", "base", "strided", "reversed", "transposed",
                      "readonly"]) if nd else "base"
    if kind == "strided":
        axis = int(case.rng.integers(nd))
        bshape = tuple(2 * d if i == axis else d for i, d in enumerate(shape))
        sl = tuple(slice(None, None, 2) if i == axis else slice(None) for i in range(nd))
        view = lambda a: a[sl]  # noqa: E731
    elif kind == "reversed":
        axis = int(case.rng.integers(nd))
        bshape = shape
        sl = tuple(slice(None, None, -1) if i == axis else slice(None) for i in range(nd))
        view = lambda a: a[sl]  # noqa: E731
    elif kind == "readonly":                    # a broadcast view: every set is refused
        bshape = (min(shape[0], 1),) + shape[1:]
        view = lambda a: (numpy if isinstance(a, numpy.ndarray) else  # noqa: E731
                          cupynum).broadcast_to(a, shape)
    elif kind == "transposed":
        bshape = shape[::-1]
        view = lambda a: a.T  # noqa: E731
    else:
        bshape = shape
        view = lambda a: a  # noqa: E731
    base = sample(bshape, dtype, seed=case.seed)
    assert view(base).shape == shape
    return base, view, kind


# ---- keys -------------------------------------------------------------------------------

def _int_index(case, n, shape):
    """An integer index array of `shape` into a dimension of length n (negatives and repeats;
    now and then one out of bounds); any integer dtype that holds the values."""
    signed = [d for d in INDEX_DTYPES if d.kind == "i"]
    dt = case.pick(INDEX_DTYPES)
    lo = -n if dt.kind == "i" else 0
    hi = max(n, 1)
    if n == 0:
        lo, hi = 0, 1          # every index is out of bounds (unless the index is empty)
    v = case.rng.integers(lo, hi, size=shape)
    if v.size and case.chance(0.06):
        v.flat[int(case.rng.integers(v.size))] = case.pick([n, -n - 1, n + 3])
    if v.min(initial=0) < 0 and dt.kind == "u":
        dt = case.pick(signed)
    return v.astype(dt)


def _sub_shape(case, bshape):
    """A shape that broadcasts to bshape (trailing dims, some set to 1); now and then one that
    does not."""
    k = int(case.rng.integers(0, len(bshape) + 1))
    s = [1 if case.chance(0.3) else d for d in bshape[len(bshape) - k:]]
    if case.chance(0.04):
        s = s + [max(bshape[-1] if bshape else 1, 1) + 1]
    return tuple(s)


def _items(case, shape):
    """The items of a key (a list) for an array of `shape`."""
    nd = len(shape)
    used = int(case.rng.integers(0, nd + 1))
    if case.chance(0.03):
        used = nd + 1                                            # too many indices
    bshape = case.pick(BSHAPES)
    kinds = ["slice", "int", "iarr", "iarr", "list", "mask", "none", "mask0"]
    items, d = [], 0
    while d < used:
        kind = case.pick(kinds)
        n = shape[d] if d < nd else 1
        if kind == "slice":
            start = case.pick([None, 0, 1, -1, -2, n, n + 2])
            stop = case.pick([None, 0, 1, -1, n, -n - 1, 2])
            step = case.pick([None, None, 1, 2, -1, -2, 3])
            items.append(slice(start, stop, step))
            d += 1
        elif kind == "int":
            v = int(case.rng.integers(-n, n)) if n else 0
            if case.chance(0.05):
                v = case.pick([n, -n - 1])
            items.append(case.pick([v, numpy.int64(v), numpy.int32(v)]) if -2**31 <= v < 2**31
                         else v)
            d += 1
        elif kind == "iarr":
            items.append(_int_index(case, n, _sub_shape(case, bshape)))
            d += 1
        elif kind == "list":
            a = _int_index(case, n, _sub_shape(case, bshape)[-2:])
            items.append(a.astype(numpy.int64).tolist() if a.ndim else [int(a)])
            d += 1
        elif kind == "mask":
            k = int(case.rng.integers(1, used - d + 1))
            mshape = list(shape[d:d + k]) + [1] * max(0, d + k - nd)
            if case.chance(0.06):
                j = int(case.rng.integers(k))
                mshape[j] += case.pick([1, 2])                   # the wrong shape
            density = case.pick([0.0, 0.3, 0.7, 1.0])
            m = case.rng.random(mshape) < density
            items.append(m.tolist() if case.chance(0.1) and m.ndim == 1 else m)
            d += k
        elif kind == "none":
            items.append(None)
        else:
            items.append(case.pick([True, False, numpy.True_, numpy.array(False),
                                    numpy.array(True)]))
    if not items or (len(items) < 4 and case.chance(0.15)):
        items.insert(int(case.rng.integers(len(items) + 1)), None)
    if case.chance(0.35):
        items.insert(int(case.rng.integers(len(items) + 1)), Ellipsis)
    return items


def _key(case, shape):
    """A NumPy key for an array of `shape`: a tuple, a lone item, np.ix_ of per-axis indices."""
    if shape and case.chance(0.08):
        per = []
        for n in shape[:int(case.rng.integers(1, len(shape) + 1))]:
            if case.chance(0.3):
                per.append(case.rng.random(n) < 0.5)
            else:
                per.append(_int_index(case, n, (int(case.rng.integers(0, 4)),)))
        return numpy.ix_(*per)
    items = _items(case, shape)
    if len(items) == 1 and case.chance(0.5):
        return items[0]
    return tuple(items)


def _to_cupynum(case, k):
    """The key with (some of) its NumPy arrays as cupynum arrays."""
    if isinstance(k, tuple):
        return tuple(_to_cupynum(case, x) for x in k)
    if isinstance(k, numpy.ndarray) and case.chance(0.6):
        if k.ndim and case.chance(0.25):        # a strided view as the index
            return cupynum.array(numpy.repeat(k, 2, axis=-1))[..., ::2]
        return cupynum.array(k)
    return k


# ---- values -----------------------------------------------------------------------------

def _scalar(case, dtype):
    if dtype.kind == "b":
        return case.pick([True, False, numpy.True_])
    if dtype.kind in "iu":
        return case.pick([3, 0, numpy.int8(5), dtype.type(7), 2.5, numpy.float64(1.5), True])
    if dtype.kind == "f":
        return case.pick([2.5, -1.0, 4, dtype.type(-0.5), numpy.int16(3), numpy.float32(0.25)])
    return case.pick([1 + 2j, 3.0, -2, dtype.type(0.5 - 1j)])


def _value_dtype(case, dtype):
    """The values' dtype: mostly the array's, now and then another one NumPy casts from
    without a warning (no complex into real)."""
    if case.chance(0.75):
        return dtype
    return case.pick([d for d in DTYPES if d.kind != "c" or dtype.kind == "c"])


def _value(case, dtype, rshape, pair=None):
    """(NumPy value, cupynum value) for an assignment to a selection of shape rshape (with
    `pair`, now and then the array itself, reversed: a value overlapping the target)."""
    form = case.pick(["scalar", "scalar", "broadcast", "exact", "exact", "wrong", "alias"])
    if form == "alias":
        if pair is not None and pair.n.ndim:
            # NumPy's a[mask] = v reads v as it writes (a[m] = a[::-1] sees its own writes):
            # cupynum's result is compared with NumPy's given a copy
            return pair.n[::-1].copy(), pair.c[::-1]
        form = "exact"
    if form == "scalar" or rshape is None:
        v = _scalar(case, dtype)
        if case.chance(0.2):
            v = numpy.array(v, dtype=dtype)
            return v, case.pick([v, cupynum.array(v)])
        return v, v
    if form == "broadcast":
        vshape = _sub_shape(case, rshape) if rshape else ()
    elif form == "exact":
        vshape = rshape
    else:
        vshape = list(rshape) or [1]
        j = int(case.rng.integers(len(vshape)))
        vshape[j] = vshape[j] + 2 if vshape[j] != 1 else 3
        if case.chance(0.3):
            vshape = [2] + list(rshape)
        vshape = tuple(vshape)
    v = sample(vshape, _value_dtype(case, dtype), seed=case.seed + 1)
    how = case.pick(["numpy", "cupynum", "cupynum", "list"])
    if how == "list" and v.ndim:
        return v.tolist(), v.tolist()
    return v, (cupynum.array(v) if how == "cupynum" else v)


# ---- comparing --------------------------------------------------------------------------

def _same_error(e, fn, what):
    with pytest.raises(type(e)) as got:
        fn()
    assert str(got.value) == str(e), (what, str(got.value), str(e))


def _check_array(c, n, what):
    try:
        check(c, n)
    except AssertionError as err:
        raise AssertionError(f"{what}: {err}") from err


class _Pair:
    """The NumPy array and the cupynum one, as base and view."""

    def __init__(self, base, view):
        self.nb = base.copy()
        self.cb = cupynum.array(base)
        self.view = view

    @property
    def n(self):
        return self.view(self.nb)

    @property
    def c(self):
        return self.view(self.cb)

    def same(self, what):
        _check_array(self.cb, self.nb, what + " (base)")
        _check_array(self.c, self.n, what)


def _get(pair, kn, kc, what):
    """pair.n[kn] against pair.c[kc]; returns the two results (None where NumPy raised)."""
    try:
        rn = pair.n[kn]
    except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
        _same_error(e, lambda: pair.c[kc], what)
        pair.same(what + " after the failed get")
        return None, None
    rc = pair.c[kc]
    check(rc, rn)
    return rn, rc


def _set(pair, kn, kc, vn, vc, what, op=None):
    """pair.n[kn] = vn (or `op`=, augmented) against the same on pair.c; then the arrays."""
    def do(a, k, v):
        if op is None:
            a[k] = v
        elif op == "+":
            a[k] += v
        elif op == "-":
            a[k] -= v
        else:
            a[k] *= v

    before = pair.nb.copy()
    try:
        do(pair.n, kn, vn)
    except Exception as e:  # noqa: BLE001
        numpy.copyto(pair.nb, before)
        _same_error(e, lambda: do(pair.c, kc, vc), what)
        pair.same(what + " after the failed assignment (unchanged)")
        return
    do(pair.c, kc, vc)
    pair.same(what)


def _run(seed):
    case = _Case(seed)
    base, view, kind = _array(case)
    pair = _Pair(base, view)
    shape, dtype = pair.n.shape, pair.n.dtype
    kn = _key(case, shape)
    kc = _to_cupynum(case, kn)
    what = f"case {seed}: {kind} {dtype} {shape} [{kn!r}]"

    with warnings.catch_warnings():
        warnings.simplefilter("error")         # a warning from either side fails the case
        rn, rc = _get(pair, kn, kc, what + " get")
        rshape = None if rn is None else numpy.shape(rn)
        if isinstance(rn, numpy.ndarray) and rn.flags.writeable and case.chance(0.3):
            # a write into the result reaches the array only through a view, as NumPy's
            rn[...] = 1
            rc[...] = 1
            pair.same(what + " after a write into the result")
            check(rc, rn)

        vn, vc = _value(case, dtype, rshape, pair)
        _set(pair, kn, kc, vn, vc, what + f" = {vn!r}")
        if rn is not None and isinstance(rn, numpy.ndarray):
            # a view shows the assignment, a copy does not: the same as NumPy's
            check(rc, rn)

        vn, vc = _value(case, dtype, rshape, pair)
        op = case.pick(["+", "+", "-", "*"])
        _set(pair, kn, kc, vn, vc, what + f" {op}= {vn!r}", op=op)

        # NumPy's ufunc.at mishandles new axes (None, True): uninitialised shapes and axes in
        # its errors ("axis 975184428 is out of bounds"), so those keys are not compared there
        items = kn if isinstance(kn, tuple) else (kn,)
        new_axes = any(k is None or isinstance(k, (bool, numpy.bool_)) or
                       isinstance(k, numpy.ndarray) and k.ndim == 0 and k.dtype == bool
                       for k in items)
        if case.chance(0.25) and dtype.kind != "b" and not new_axes:
            vn, vc = _value(case, dtype, rshape)
            if kind == "readonly":
                # NumPy refuses a read-only array first -- but its loop for an index array and
                # an integer (a[idx, 0]) writes into it: not compared with NumPy
                with pytest.raises(ValueError) as got:
                    cupynum.add.at(pair.c, kc, vc)
                assert str(got.value) == "operand array with iterator write flag set is read-only"
                pair.same(what + " add.at")
                return
            # NumPy's checks of the operand's shape are erratic where index arrays meet slices
            # or 0-d index arrays (uninitialised shapes and axes in its messages: "cannot
            # reshape array of size 6 into shape (1,1)", AxisError; operands with extra
            # dimensions taken or refused by the key's form): there NumPy's IndexErrors
            # (bounds, masks) are compared word for word, its other errors by ValueError alone
            # (cupynum: NumPy's "array is not broadcastable to correct shape"), and an operand
            # with more dimensions than the selection is not compared where NumPy takes it
            before = pair.nb.copy()
            try:
                numpy.add.at(pair.n, kn, vn)
            except numpy.exceptions.AxisError:
                with pytest.raises(ValueError):
                    cupynum.add.at(pair.c, kc, vc)
            except IndexError as e:
                _same_error(e, lambda: cupynum.add.at(pair.c, kc, vc), what + " add.at")
            except ValueError as e:
                if str(e) == "array is not broadcastable to correct shape":
                    _same_error(e, lambda: cupynum.add.at(pair.c, kc, vc), what + " add.at")
                else:
                    with pytest.raises(ValueError):
                        cupynum.add.at(pair.c, kc, vc)
            else:
                if numpy.ndim(vn) > len(rshape):
                    numpy.copyto(pair.nb, before)
                else:
                    cupynum.add.at(pair.c, kc, vc)
            pair.same(what + " add.at")


@pytest.mark.parametrize("seed", range(CASES))
def test_sweep(seed):
    _run(seed)


# ---- ndarray.flat --------------------------------------------------------------------------

def _flat_key(case, size):
    kind = case.pick(["int", "slice", "iarr", "list", "mask", "ell"])
    if kind == "int":
        v = int(case.rng.integers(-size, size)) if size else 0
        return case.pick([v, size]) if case.chance(0.1) else v
    if kind == "slice":
        return slice(case.pick([None, 1, -2]), case.pick([None, 3, -1]), case.pick([None, 2, -1]))
    if kind == "iarr":
        return _int_index(case, size, case.pick([(3,), (2, 2), (0,), ()]))
    if kind == "list":
        return _int_index(case, size, (3,)).astype(numpy.int64).tolist()
    if kind == "mask":
        return case.rng.random(size + (1 if case.chance(0.05) else 0)) < 0.5
    return Ellipsis


@pytest.mark.parametrize("seed", range(CASES // 6))
def test_flat_sweep(seed):
    case = _Case(100000 + seed)
    base, view, kind = _array(case)
    pair = _Pair(base, view)
    dtype = pair.n.dtype
    kn = _flat_key(case, pair.n.size)
    kc = _to_cupynum(case, kn)
    what = f"flat case {seed}: {kind} {dtype} {pair.n.shape} [{kn!r}]"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            rn = pair.n.flat[kn]
        except Exception as e:  # noqa: BLE001
            _same_error(e, lambda: pair.c.flat[kc], what)
            rn = None
        else:
            check(pair.c.flat[kc], rn)
        vn, vc = _value(case, dtype, None if rn is None else numpy.shape(rn))
        before = pair.nb.copy()
        try:
            pair.n.flat[kn] = vn
        except Exception as e:  # noqa: BLE001
            numpy.copyto(pair.nb, before)
            _same_error(e, lambda: pair.c.flat.__setitem__(kc, vc), what + " set")
        else:
            pair.c.flat[kc] = vc
        pair.same(what + " set")


# ---- regressions the sweep found (each the smallest case) --------------------------------------

@pytest.mark.parametrize("key", [
    lambda A: (A(1),),                          # a 0-d index array: an index array, a copy
    lambda A: (A(1), Ellipsis),
    lambda A: (A(1), None),
    lambda A: (A(0), None, A(2)),               # only 0-d index arrays (was a TypeError)
    lambda A: (slice(None), A(-1)),
])
@pytest.mark.parametrize("kind", [numpy.array, lambda v: cupynum.array(numpy.array(v))])
def test_zero_d_index_array_gives_a_copy(key, kind):
    n = numpy.arange(24.0).reshape(2, 3, 4)
    c = cupynum.array(n)
    rn, rc = n[key(numpy.array)], c[key(kind)]
    check(rc, rn)
    n[...] = -1
    c[...] = -1
    check(rc, rn)                               # NumPy's result is a copy: unchanged
    check(c[(kind(1),) * 3], n[(numpy.array(1),) * 3])   # a full integer index: a scalar


@pytest.mark.parametrize("key,b", [
    (slice(None), numpy.ones((1, 3))),          # a leading 1 NumPy's loop does not drop
    (numpy.array([0, 1, 2]), numpy.ones((1, 3))),
    (numpy.array([0, 2, 2]), [[1.0, 2.0, 3.0]]),
    (slice(None), numpy.ones(2)),
    (None, numpy.ones((3, 3))),
])
def test_ufunc_at_operand_must_fit_without_new_dimensions(key, b):
    n = numpy.arange(3.0)
    c = cupynum.array(n)
    kc = cupynum.array(key) if isinstance(key, numpy.ndarray) else key
    with pytest.raises(ValueError) as e:
        numpy.add.at(n, key, b)
    with pytest.raises(ValueError) as g:
        cupynum.add.at(c, kc, b)
    assert str(g.value) == str(e.value)
    check(c, n)


@pytest.mark.parametrize("key", [6, -7, numpy.int8(-7), [0, 7], numpy.array([[1, -8]]),
                                 numpy.array([True] * 5), (1, 2), None, [True, False],
                                 numpy.array([0, 1], numpy.uint64), numpy.array(6)])
def test_flat_get_errors_and_forms_are_numpys(key):
    n = numpy.arange(6.0).reshape(2, 3)
    c = cupynum.array(n)
    kc = cupynum.array(key) if isinstance(key, numpy.ndarray) and key.ndim else key
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            rn = n.flat[key]
        except Exception as e:  # noqa: BLE001
            _same_error(e, lambda: c.flat[kc], repr(key))
        else:
            check(c.flat[kc], rn)


@pytest.mark.parametrize("key", [
    lambda A: (numpy.array([0, 0]), A(1)),      # an index array and a 0-d cupynum one
    lambda A: ([0], A(-1)),
    lambda A: (A(0), numpy.array([True, False, True, False, True])),
    lambda A: (A(0), slice(None), numpy.array([1, 0])),
])
def test_zero_d_cupynum_index_beside_an_index_array_set(key):
    n = numpy.arange(10).reshape(2, 5)
    c = cupynum.array(n)
    kc = key(lambda v: cupynum.array(numpy.array(v)))
    kn = key(numpy.array)
    if len(kn) == 3:
        n, c = n.reshape(2, 5, 1)[:, :, [0, 0]], cupynum.array(n.reshape(2, 5, 1)[:, :, [0, 0]])
    check(c[kc], n[kn])
    n[kn] = 99
    c[kc] = 99
    check(c, n)
    n[kn] += 1
    c[kc] += 1
    check(c, n)


@pytest.mark.parametrize("key", [
    (0, Ellipsis, numpy.array([False] * 5)),    # the mask's shape is checked before the int
    (Ellipsis, numpy.ones((4, 5), bool), -3),
    (5, numpy.array([0, 1])),                   # an int out of bounds beside an index array
])
def test_advanced_items_are_checked_before_the_integers(key):
    n = numpy.zeros((0, 2, 2))
    if key[0] is Ellipsis:
        n = numpy.zeros((2, 2, 0))
    c = cupynum.array(n)
    kc = tuple(cupynum.array(k) if isinstance(k, numpy.ndarray) else k for k in key)
    for op in ("get", "set"):
        with pytest.raises(IndexError) as e:
            n[key] if op == "get" else n.__setitem__(key, 1)
        _same_error(e.value, lambda: c[kc] if op == "get" else c.__setitem__(kc, 1), op)
        check(c, n)


@pytest.mark.parametrize("shape,key,value", [
    ((), Ellipsis, [1]),                        # a sequence deeper than the target
    ((), (None,), [[3.0, 5.75]]),
    ((2,), slice(None), [[1, 2]]),
    ((1, 2), Ellipsis, [[[1, 2]]]),
    ((), Ellipsis, numpy.ones(1)),              # an array's leading 1s drop
    ((), Ellipsis, numpy.ones(2)),
    ((1,), slice(0, 2, 3), [[-35], [-49]]),     # too deep: before the conversion's OverflowError
    ((2,), Ellipsis, [[1, 2], [3]]),            # too deep before ragged
])
def test_basic_set_of_a_sequence_deeper_than_the_target(shape, key, value):
    n = numpy.zeros(shape, numpy.uint16)
    c = cupynum.array(n)
    _set(_Pair(n, lambda a: a), key, key, value, value, repr(value))


@pytest.mark.parametrize("key", [numpy.array([0, 1]), numpy.array([True, False, True])])
@pytest.mark.parametrize("value", [[-1.0], [[1.0, -6.0]], [-0.5, 2.0], [1 + 1j, 2.0]])
def test_advanced_set_converts_a_list_to_the_arrays_dtype(key, value):
    # NumPy converts a list element by element to the target's dtype: -1.0 into uint16 is an
    # OverflowError, -0.5 is 0, a complex a TypeError
    n = numpy.zeros((3, 2), numpy.uint16)
    _set(_Pair(n, lambda a: a), key, cupynum.array(key), value, value, repr(value))


@pytest.mark.parametrize("key", [lambda m: m, lambda m: (m,), lambda m: m.tolist()])
@pytest.mark.parametrize("value", [numpy.ones((1, 1)), [[1.0, 2.0, 3.0, 4.0]], numpy.ones((1, 4))])
def test_whole_array_mask_set_takes_a_0d_or_1d_value(key, value):
    n = numpy.zeros((2, 3))
    m = numpy.array([[True, False, True], [False, True, True]])
    kc = key(cupynum.array(m)) if not isinstance(key(m), list) else key(m)
    _set(_Pair(n, lambda a: a), key(m), kc, value, value, repr(value))


def test_ufunc_at_on_a_read_only_array():
    c = cupynum.broadcast_to(cupynum.zeros((1, 3)), (2, 3))
    for key in (numpy.array([0]), slice(None), (numpy.array([0]), 0)):
        with pytest.raises(ValueError) as e:
            numpy.add.at(numpy.broadcast_to(numpy.zeros((1, 3)), (2, 3)), slice(None), 1.0)
        with pytest.raises(ValueError) as got:
            cupynum.add.at(c, key, 1.0)
        assert str(got.value) == str(e.value)
    check(c, numpy.zeros((2, 3)))


@pytest.mark.parametrize("key", [0, -1, 7, slice(None), [0, 1], numpy.array([True] * 6), Ellipsis])
def test_flat_set_on_a_read_only_array(key):
    n = numpy.broadcast_to(numpy.arange(3.0), (2, 3))
    c = cupynum.broadcast_to(cupynum.arange(3.0), (2, 3))
    with pytest.raises(ValueError) as e:
        n.flat[key] = 1
    with pytest.raises(ValueError) as got:
        c.flat[key] = 1
    assert str(got.value) == str(e.value)
    check(c, n)


@pytest.mark.parametrize("shape,key,vshape", [
    ((1, 5, 3), (Ellipsis, 0, slice(None, 5, -2), 0), (1, 5, 3)),   # (5, 3) into (0,)
    ((1, 5, 0, 0), (0, -5), (1, 5, 0, 0)),
    ((2, 3), (0,), (1, 1, 2, 3)),
])
def test_basic_set_drops_as_many_leading_ones_as_numpy(shape, key, vshape):
    n = numpy.zeros(shape)
    v = numpy.ones(vshape)
    _set(_Pair(n, lambda a: a), key, key, v, v, repr(vshape))


def test_mask_read_of_a_broadcast_view_with_integers():
    # 4 ranks: the mask copied onto a store laid out like the view's root, seen through the
    # broadcast view, aliased its rows (8 elements selected for 9)
    m = numpy.array([[1, 1, 0, 0, 0], [0, 1, 1, 0, 0], [1, 1, 0, 0, 0], [1, 0, 1, 0, 1]], bool)
    b = numpy.arange(20, dtype=numpy.int32).reshape(1, 5, 2, 2)
    n = numpy.broadcast_to(b, (4, 5, 2, 2))
    c = cupynum.broadcast_to(cupynum.array(b), (4, 5, 2, 2))
    for key in [(m, -2, -1), (m, 0)]:
        check(c[key], n[key])
        check(c[(cupynum.array(m),) + key[1:]], n[key])


@pytest.mark.parametrize("key", [2**63, 2**64, -2**63 - 1, 2**70, (0, 2**63), (Ellipsis, 2**64),
                                 numpy.uint64(2**63)])
@pytest.mark.parametrize("shape", [(3,), (3, 4)])
def test_integers_too_large_for_an_index(key, shape):
    n = numpy.zeros(shape)
    c = cupynum.array(n)
    if isinstance(key, tuple) and len(shape) == 1:
        key = key[1:]
    for op in ("get", "set"):
        with pytest.raises((IndexError, OverflowError)) as e:
            n[key] if op == "get" else n.__setitem__(key, 1)
        _same_error(e.value, lambda: c[key] if op == "get" else c.__setitem__(key, 1), op)
    check(c, n)


@pytest.mark.parametrize("key", [None, True, 1.0, (1,), (1, 2)])
@pytest.mark.parametrize("value", [5, 1 + 2j])
def test_flat_set_refuses_what_numpys_flat_iterator_refuses(key, value):
    n = numpy.arange(6.0).reshape(2, 3)
    c = cupynum.array(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # NumPy 2.4 deprecates some
        try:
            n.flat[key] = value
        except Exception as e:  # noqa: BLE001
            _same_error(e, lambda: c.flat.__setitem__(key, value), repr(key))
        else:
            c.flat[key] = value
    check(c, n)


@pytest.mark.parametrize("args", [
    (numpy.array([], dtype=float),),            # an array keeps its dtype; a list is intp
    ([],),
    ([0, 1], numpy.array([], dtype=numpy.float32)),
])
def test_ix_of_empty_sequences(args):
    check(cupynum.ix_(*args), numpy.ix_(*args))
