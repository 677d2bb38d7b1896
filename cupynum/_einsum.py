"""einsum, einsum_path, and polyfit/roots on top of numpy.linalg's native functions.

einsum is planned into the ops cupynum has: each operand's repeated subscripts become diagonal
views, subscripts no one needs later are summed out (reductions), and each pairwise contraction
is one batched matmul (BLAS) of transposed and reshaped views -- batch letters (in both operands
and kept) lead, the contracted letters are the matmul's k -- or an element-wise multiply of
broadcast views when nothing is contracted.  The order of the pairwise contractions is NumPy's:
`optimize=False` contracts left to right (NumPy's c_einsum does all at once; the sums agree to
rounding), any other `optimize` takes the path numpy.einsum_path chooses, computed on stand-ins
of the operands' shapes (no data moves), so `einsum_path` itself returns NumPy's own answer."""

import math

import numpy as _np

from . import _core
from ._ndarray import _reshape, _transpose, ndarray


def _cp():
    import cupynum
    return cupynum


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _standin(x):
    if isinstance(x, ndarray):
        return _np.broadcast_to(_np.zeros((), x.dtype), tuple(x.shape))
    return x


def _split_operands(operands):
    """(standins for NumPy's parser, the cupynum operands in order)."""
    if isinstance(operands[0], str):
        arrays = [_asarray(a) for a in operands[1:]]
        return [operands[0]] + [_standin(a) for a in arrays], arrays
    # interleaved form: op, sublist, op, sublist, ..., [output sublist]
    std, arrays = [], []
    nops = len(operands) // 2
    for k, x in enumerate(operands):
        if k % 2 == 0 and k < 2 * nops:
            a = _asarray(x)
            arrays.append(a)
            std.append(_standin(a))
        else:
            std.append(x)
    return std, arrays


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    std, _ = _split_operands(operands)
    return _np.einsum_path(*std, optimize=optimize, einsum_call=einsum_call)


def _sum(x, axes, dt):
    cp = _cp()
    if dt == _np.bool_:
        return cp.any(x, axis=axes)
    return cp.sum(x, axis=axes, dtype=dt)


def _reduce_single(x, idx, keep, dt):
    """Diagonals of repeated letters, then the letters not in `keep` summed out."""
    while len(set(idx)) != len(idx):
        for c in idx:
            if idx.count(c) > 1:
                break
        i = idx.index(c)
        j = idx.index(c, i + 1)
        x = _core.diagonal(x, 0, i, j)
        idx = "".join(ch for k, ch in enumerate(idx) if k not in (i, j)) + c
    axes = tuple(k for k, c in enumerate(idx) if c not in keep)
    if axes:
        x = _asarray(_sum(x, axes, dt))
        idx = "".join(c for c in idx if c in keep)
    return x, idx


def _perm(x, idx, order):
    p = tuple(idx.index(c) for c in order)
    return x if p == tuple(range(len(p))) else _transpose(x, p)


def _contract_pair(a, ia, b, ib, keep, dt):
    from ._products import _matmul
    cp = _cp()
    a, ia = _reduce_single(a, ia, keep | set(ib), dt)
    b, ib = _reduce_single(b, ib, keep | set(ia), dt)
    size = {}
    for x, idx in ((a, ia), (b, ib)):
        for c, s in zip(idx, x.shape):
            size[c] = s if size.get(c, 1) == 1 else size[c]   # broadcast (ellipsis dims)
    batch = [c for c in ia if c in ib and c in keep]
    contr = [c for c in ia if c in ib and c not in keep]
    left = [c for c in ia if c not in ib]
    right = [c for c in ib if c not in ia]
    out = "".join(batch + left + right)
    if not contr:
        A = _perm(a, ia, batch + left)
        A = _reshape(A, tuple(A.shape) + (1,) * len(right))
        B = _perm(b, ib, batch + right)
        B = _reshape(B, tuple(B.shape[:len(batch)]) + (1,) * len(left) + tuple(B.shape[len(batch):]))
        return _asarray(cp.multiply(A, B)), out
    bshape_a = tuple(a.shape[ia.index(c)] for c in batch)
    bshape_b = tuple(b.shape[ib.index(c)] for c in batch)
    m = math.prod(size[c] for c in left)
    n = math.prod(size[c] for c in right)
    k = math.prod(size[c] for c in contr)
    A = _reshape(_perm(a, ia, batch + left + contr), bshape_a + (m, k))
    B = _reshape(_perm(b, ib, batch + contr + right), bshape_b + (k, n))
    C = _matmul(A, B)
    return _reshape(C, tuple(C.shape[:len(batch)]) + tuple(size[c] for c in left + right)), out


def _cast_check(arrays, dtype, casting):
    if dtype is None:
        dt = _np.result_type(*[a.dtype for a in arrays]) if arrays else _np.dtype(float)
        for k, a in enumerate(arrays):
            if not _np.can_cast(a.dtype, dt, casting):
                raise TypeError(f"Iterator operand {k} dtype could not be cast from {a.dtype!r} "
                                f"to {dt!r} according to the rule {casting!r}")
    else:
        dt = _np.dtype(dtype)
        for a in arrays:
            if not _np.can_cast(a.dtype, dt, casting):
                raise TypeError(f"Cannot cast array data from {a.dtype!r} to {dt!r} according "
                                f"to the rule {casting!r}")
    return dt


# (subscripts, operand shapes and dtypes, optimize) -> (input subscripts, output, path): NumPy's
# parse and path, computed on stand-ins, are most of a small einsum's time (30 us of a 10x10
# matrix-vector product)
_PLANS = {}


def _plan(operands, optimize):
    """(input subscripts, output subscripts, contraction path, each operand's shape with its
    subscripts of size 1 broadcast, the cupynum operands)."""
    key = None
    if isinstance(operands[0], str) and isinstance(optimize, (bool, str)):
        arrays = [_asarray(a) for a in operands[1:]]
        key = (operands[0], optimize) + tuple((tuple(a.shape), a.dtype) for a in arrays)
        hit = _PLANS.get(key)
        if hit is not None:
            return hit + (arrays,)
    std, arrays = _split_operands(operands)
    # NumPy parses (and raises its errors for bad subscripts and shapes)
    from numpy._core.einsumfunc import _parse_einsum_input
    inputs, output, _ = _parse_einsum_input(std)
    ins = inputs.split(",")
    if any(len(i) != a.ndim for i, a in zip(ins, arrays)):
        _np.einsum(*std, optimize=optimize)   # NumPy's error (its message depends on optimize)
    size = {}
    for i, a in zip(ins, arrays):
        for c, n in zip(i, a.shape):
            if size.get(c, 1) != 1 and n != 1 and size[c] != n:
                _np.einsum(*std, optimize=optimize)   # NumPy's error: sizes differ (1 broadcasts)
            size[c] = n if size.get(c, 1) == 1 else size[c]
    if optimize is False:
        path = [(0, 1)] * (len(ins) - 1) if len(ins) > 1 else [(0,)]
    else:
        path = [tuple(p) for p in _np.einsum_path(*std, optimize=optimize)[0][1:]]
    shapes = [tuple(size[c] for c in i) for i in ins]   # a subscript of size 1 broadcasts
    if key is not None and len(_PLANS) < 512:
        _PLANS[key] = (ins, output, path, shapes)
    return ins, output, path, shapes, arrays


# (subscripts, optimize, both shapes and dtypes) -> the steps of a two-operand einsum that is one
# matmul (_recipe), or False where the general way runs: a 10x10 matrix-vector product spent 15 us
# in the planner's Python around a matmul of 1 us
_RECIPES = {}
_CASTINGS = frozenset(("no", "equiv", "safe", "same_kind", "unsafe"))   # one dtype: all pass


def _recipe(ins, output, path, shapes, arrays, optimize):
    """The ops `einsum` queues for two operands of one dtype contracted by one matmul, with no
    repeated subscript, no subscript summed out of one operand alone, no size-1 broadcast and
    no cast: (A's permutation or None, A's matmul shape, the same for B, batched, C's shape,
    C's permutation to the output or None, a scalar result); None where it does not apply.
    The same steps as _contract_pair's, so the same values."""
    if len(ins) != 2 or path != [(0, 1)] or any(tuple(a.shape) != s for a, s in zip(arrays, shapes)):
        return None
    (a, b), (ia, ib) = arrays, ins
    dt = a.dtype
    if b.dtype != dt or dt == _np.float16 or dt.kind not in "biufc" or \
            len(set(ia)) != len(ia) or len(set(ib)) != len(ib):
        return None
    keep = set(output)
    if any(c not in keep and c not in ib for c in ia) or any(c not in keep and c not in ia for c in ib):
        return None
    size = dict(zip(ia, a.shape))
    size.update(zip(ib, b.shape))
    batch = [c for c in ia if c in ib and c in keep]
    contr = [c for c in ia if c in ib and c not in keep]
    left = [c for c in ia if c not in ib]
    right = [c for c in ib if c not in ia]
    if not contr:
        return None

    def perm(idx, order):
        p = tuple(idx.index(c) for c in order)
        return None if p == tuple(range(len(p))) else p
    bshape = tuple(size[c] for c in batch)
    m = math.prod(size[c] for c in left)
    n = math.prod(size[c] for c in right)
    k = math.prod(size[c] for c in contr)
    return (perm(ia, batch + left + contr), bshape + (m, k), perm(ib, batch + contr + right),
            bshape + (k, n), bool(batch), bshape + tuple(size[c] for c in left + right),
            perm("".join(batch + left + right), output), not output and optimize is False)


def _shaped(x, perm, shape):
    """x transposed by perm (None: as it is) and reshaped as _reshape does (a copy where no view
    has that shape)."""
    if perm is not None:
        x = _core.transpose(x, perm)
    v = _core.reshape(x, shape)
    return v if v is not None else _core.reshape(_core.cast(x, x.dtype), shape)


def _run_recipe(r, a, b):
    pa, sa, pb, sb, batched, sc, pc, scalar = r
    A, B = _shaped(a, pa, sa), _shaped(b, pb, sb)
    if batched:
        from ._products import _matmul
        C = _matmul(A, B)
    else:
        C = _core.matmul(A, B, A.dtype)
    x = _shaped(C, None, sc)
    if pc is not None:
        x = _core.transpose(x, pc)
    return _core.to_scalar(x) if scalar else x


def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    if len(operands) == 3 and out is None and dtype is None and type(operands[0]) is str and \
            casting in _CASTINGS and (optimize is False or optimize is True or type(optimize) is str):
        a, b = operands[1], operands[2]
        if type(a) is ndarray and type(b) is ndarray:
            key = (operands[0], optimize, a.shape, b.shape, a.dtype, b.dtype)
            r = _RECIPES.get(key)
            if r:
                return _run_recipe(r, a, b)
            if r is None and len(_RECIPES) < 512:   # not seen: plan, and keep what applies
                ins, output, path, shapes, arrays = _plan(operands, optimize)
                _RECIPES[key] = _recipe(ins, output, path, shapes, arrays, optimize) or False
    ins, output, path, shapes, arrays = _plan(operands, optimize)
    dt = _cast_check(arrays, dtype, casting)
    cdt = _np.dtype(_np.float32) if dt == _np.float16 else dt
    arrays = [a if tuple(a.shape) == sh else _core.broadcast_to(a, sh) for a, sh in zip(arrays, shapes)]
    ops = [(_core.cast(a, cdt) if a.dtype != cdt else a, i) for a, i in zip(arrays, ins)]
    last_pair = False
    for step in path:
        taken = [ops[p] for p in step]
        for p in sorted(step, reverse=True):
            del ops[p]
        keep = set(output).union(*[set(i) for _, i in ops])
        x, ix = taken[0]
        if len(taken) == 1:
            x, ix = _reduce_single(x, ix, keep, cdt)
        for t in range(1, len(taken)):
            y, iy = taken[t]
            rest = keep.union(*[set(i) for _, i in taken[t + 1:]])
            x, ix = _contract_pair(x, ix, y, iy, rest, cdt)
        last_pair = len(taken) > 1
        ops.append((x, ix))
    (x, ix), = ops
    x, ix = _reduce_single(x, ix, set(output), cdt)
    x = _perm(x, ix, output)
    if x.dtype != dt:
        x = _core.cast(x, dt)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("einsum: out must be a cupynum array")
        if tuple(out.shape) != tuple(x.shape):
            raise ValueError(f"output operand has a shape {tuple(out.shape)} not matching "
                             f"the einsum result {tuple(x.shape)}")
        _core.assign(out, x)
        return out
    if x.ndim == 0 and (optimize is False or not last_pair):
        return _core.to_scalar(x)   # NumPy's c_einsum returns a scalar, its bmm a 0-d array
    return x


# ---- polyfit, roots -------------------------------------------------------------------------------

def _vander(x, N):
    """numpy.vander(x, N): columns x**(N-1) ... x**0, the powers by repeated multiplication in
    NumPy's order (multiply.accumulate)."""
    cp = _cp()
    v = cp.empty((x.shape[0], N), dtype=_np.promote_types(x.dtype, int))
    if N > 0:
        v[:, N - 1] = 1
    p = None
    for k in range(1, N):
        p = x if p is None else p * x
        v[:, N - 1 - k] = p
    return v


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    import warnings
    from . import linalg
    cp = _cp()
    order = int(deg) + 1
    x = _asarray(x) + 0.0
    y = _asarray(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * _np.finfo(x.dtype).eps
    lhs = _vander(x, order)
    rhs = y
    if w is not None:
        w = _asarray(w) + 0.0
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * w[:, None] if rhs.ndim == 2 else rhs * w
    scale = cp.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", _np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    elif cov:
        Vbase = linalg.inv(cp.dot(lhs.T, lhs))
        Vbase = Vbase / cp.outer(scale, scale)
        if cov == "unscaled":
            fac = 1
        else:
            if len(x) <= order:
                raise ValueError("the number of data points must exceed order "
                                 "to scale the covariance matrix")
            fac = resids / (len(x) - order)
        if y.ndim == 1:
            return c, Vbase * fac
        return c, Vbase[:, :, None] * fac
    return c


def roots(p):
    from . import linalg
    cp = _cp()
    p = _asarray(p)
    if p.ndim == 0:
        p = _reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    non_zero = _np.nonzero(_core.to_numpy(p))[0]   # the coefficients: a few values
    if len(non_zero) == 0:
        return _core.from_any(_np.array([]))
    trailing_zeros = len(p) - non_zero[-1] - 1
    p = p[int(non_zero[0]):int(non_zero[-1]) + 1]
    if p.dtype.kind not in "fc":
        p = p.astype(float)
    N = len(p)
    if N > 1:
        A = cp.zeros((N - 1, N - 1), dtype=p.dtype)
        for i in range(1, N - 1):
            A[i, i - 1] = 1
        A[0, :] = -p[1:] / p[0]
        r = linalg.eigvals(A)
    else:
        r = _core.from_any(_np.array([]))
    if trailing_zeros:
        full = cp.zeros((len(r) + int(trailing_zeros),), dtype=r.dtype)
        if len(r):
            full[:len(r)] = r
        r = full
    return r


for _name, _npf in (("einsum", _np.einsum), ("polyfit", _np.polyfit), ("roots", _np.roots)):
    from . import _fallback
    globals()[_name] = _fallback.numpy_for_foreign(_npf)(globals()[_name])
del _name, _npf
