"""einsum (cupynum/_einsum.py: pairwise contractions planned into the matmul op, diagonals as
views, sums as reductions), einsum_path, polyfit and roots against NumPy over subscripts x dtypes
x optimize, the interleaved form, out=, dtype=, and NumPy's errors.  Runs as it is under mpirun
(every array partitioned with CUPYNUM_MIN_TILE=1).  The data are small integers (exact in any
summation order) except where a tolerance is given."""

import numpy
import pytest

import cupynum
from conftest import check


@pytest.fixture(autouse=True)
def _no_fallback(monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")


def data(shape, dt, seed):
    rng = numpy.random.default_rng(seed)
    x = rng.integers(-3, 4, shape)
    if numpy.dtype(dt).kind == "c":
        x = x + 1j * rng.integers(-3, 4, shape)
    if numpy.dtype(dt).kind == "b":
        x = x > 0
    return x.astype(dt)


CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("ii", [(4, 4)]), ("ii->i", [(4, 4)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("i,i", [(5,), (5,)]), ("i,i->i", [(5,), (5,)]), ("ij,ij->ij", [(3, 4), (3, 4)]), ("ij,kl->ijkl", [(2, 3), (3, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 3)]), ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
    ("ijk->kji", [(2, 3, 4)]), ("ijk,k->ij", [(2, 3, 4), (4,)]), ("i,j", [(3,), (4,)]), ("iij->ij", [(3, 3, 2)]),
    ("ij,jk,kl->", [(3, 4), (4, 5), (5, 2)]), ("ba,ca->bc", [(3, 4), (2, 4)]), ("ijk,jil->kl", [(3, 2, 4), (2, 3, 5)]),
    (",i->i", [(), (3,)]), ("i...->...", [(3, 2)]), ("ij,j", [(0, 3), (3,)]), ("ij,jk", [(3, 0), (0, 2)]),
    ("abc,cd,bde->ae", [(2, 3, 4), (4, 5), (3, 5, 2)]), ("ii,ij->j", [(3, 3), (3, 2)]),
]


def _case_id(c):
    return c[0].replace(",", "_").replace("->", "-to-").replace("...", "E") or "empty"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal"], ids=str)
@pytest.mark.parametrize("dt", ["int64", "float64", "complex128", "int32", "float32"])
def test_einsum_matches_numpy(case, optimize, dt):
    subs, shapes = case
    ns = [data(s, dt, k) for k, s in enumerate(shapes)]
    cs = [cupynum.array(n) for n in ns]
    check(cupynum.einsum(subs, *cs, optimize=optimize), numpy.einsum(subs, *ns, optimize=optimize))


@pytest.mark.parametrize("subs", ["ij,jk->ik", "i,i", "ii->i", "ij->"])
def test_einsum_bool_and_mixed(subs):
    shapes = {"ij,jk->ik": [(3, 4), (4, 2)], "i,i": [(4,), (4,)], "ii->i": [(3, 3)], "ij->": [(2, 3)]}[subs]
    ns = [data(s, "bool", k) for k, s in enumerate(shapes)]
    check(cupynum.einsum(subs, *[cupynum.array(n) for n in ns]), numpy.einsum(subs, *ns))
    ns = [data(s, dt, k) for k, (s, dt) in enumerate(zip(shapes, ["int8", "float32"]))]
    check(cupynum.einsum(subs, *[cupynum.array(n) for n in ns]), numpy.einsum(subs, *ns))


def test_einsum_path_is_numpys():
    shapes = [(3, 4), (4, 50), (50, 2)]
    ns = [data(s, "float64", k) for k, s in enumerate(shapes)]
    cs = [cupynum.array(n) for n in ns]
    for opt in ["greedy", "optimal", True, False]:
        assert cupynum.einsum_path("ij,jk,kl->il", *cs, optimize=opt) == \
            numpy.einsum_path("ij,jk,kl->il", *ns, optimize=opt)
    path = numpy.einsum_path("ij,jk,kl->il", *ns, optimize="optimal")[0]
    check(cupynum.einsum("ij,jk,kl->il", *cs, optimize=path), numpy.einsum("ij,jk,kl->il", *ns, optimize=path))


def test_einsum_interleaved_out_dtype():
    na, nb = data((3, 4), "float64", 1), data((4, 5), "float64", 2)
    a, b = cupynum.array(na), cupynum.array(nb)
    check(cupynum.einsum(a, [0, 1], b, [1, 2], [0, 2]), numpy.einsum(na, [0, 1], nb, [1, 2], [0, 2]))
    check(cupynum.einsum(a, [0, 1], b, [1, 2]), numpy.einsum(na, [0, 1], nb, [1, 2]))
    o, no = cupynum.zeros((3, 5)), numpy.zeros((3, 5))
    r = cupynum.einsum("ij,jk->ik", a, b, out=o)
    assert r is o
    check(o, numpy.einsum("ij,jk->ik", na, nb, out=no))
    ni = data((3, 4), "int32", 3)
    check(cupynum.einsum("ij->i", cupynum.array(ni), dtype="float64"), numpy.einsum("ij->i", ni, dtype="float64"))
    check(numpy.einsum("ij,jk", a, b), numpy.einsum("ij,jk", na, nb))   # __array_function__


def test_einsum_float_tolerance():
    rng = numpy.random.default_rng(5)
    na, nb = rng.standard_normal((20, 30)), rng.standard_normal((30, 10))
    check(cupynum.einsum("ij,jk->ik", cupynum.array(na), cupynum.array(nb)), numpy.einsum("ij,jk->ik", na, nb),
          rtol=1e-12, atol=1e-12)


def test_einsum_errors():
    a = numpy.zeros((3, 4))
    for args, kw in [(("ij,jk", a, numpy.zeros((3, 4))), {}), (("ijk", a), {}), (("ij->ik", a), {}),
                     (("ij,jk", a, a.T.astype(numpy.int64)), {"dtype": "int32"})]:
        with pytest.raises(Exception) as en:
            numpy.einsum(*args, **kw)
        cargs = [cupynum.array(x) if isinstance(x, numpy.ndarray) else x for x in args]
        with pytest.raises(type(en.value)):
            cupynum.einsum(*cargs, **kw)


def test_polyfit():
    x = numpy.linspace(0, 1, 30)
    y = 3 * x ** 2 - x + 0.5 + 0.01 * numpy.sin(40 * x)
    y2 = numpy.stack([y, 2 * y], axis=1)
    w = 1 + x
    cx, cy, cy2, cw = (cupynum.array(v) for v in (x, y, y2, w))
    check(cupynum.polyfit(cx, cy, 2), numpy.polyfit(x, y, 2), rtol=1e-10, atol=1e-12)
    check(cupynum.polyfit(cx, cy2, 3), numpy.polyfit(x, y2, 3), rtol=1e-10, atol=1e-12)
    check(cupynum.polyfit(cx, cy, 2, w=cw), numpy.polyfit(x, y, 2, w=w), rtol=1e-10, atol=1e-12)
    c, ncv = cupynum.polyfit(cx, cy, 2, cov=True), numpy.polyfit(x, y, 2, cov=True)
    check(c, ncv, rtol=1e-8, atol=1e-14)
    r, nr = cupynum.polyfit(cx, cy, 2, full=True), numpy.polyfit(x, y, 2, full=True)
    for a, b in zip(r, nr):
        check(a, b, rtol=1e-8, atol=1e-14)
    with pytest.raises(TypeError, match="expected 1D vector for x"):
        cupynum.polyfit(cy2, cy, 2)
    with pytest.raises(ValueError, match="expected deg >= 0"):
        cupynum.polyfit(cx, cy, -1)


@pytest.mark.parametrize("p", [[1.0, -6, 11, -6], [1.0, -6, 11, -6, 0, 0], [0, 0, 2.0, 1.0], [1, 0, 1], [5.0],
                               [0.0, 0.0], [1 + 1j, 2, 3j]], ids=str)
def test_roots(p):
    r, nr = cupynum.roots(cupynum.array(p)), numpy.roots(numpy.array(p))
    assert isinstance(r, cupynum.ndarray) and r.dtype == nr.dtype and tuple(r.shape) == nr.shape
    numpy.testing.assert_allclose(numpy.sort_complex(numpy.asarray(r)), numpy.sort_complex(nr), atol=1e-10)
    with pytest.raises(ValueError, match="rank-1"):
        cupynum.roots(cupynum.zeros((2, 2)))


@pytest.mark.parametrize("sub,s1,s2", [("ij,j->i", (3, 4), (1,)), ("ij,j->i", (3, 1), (4,)),
                                       ("ij,jk->ik", (3, 1), (5, 2)), ("ij,ij->", (1, 4), (3, 4)),
                                       ("i,i", (5,), (1,)), ("ij,j->i", (3, 4), (3,))])
def test_einsum_subscripts_of_size_one_broadcast_and_mismatches_raise(sub, s1, s2):
    """A subscript of size 1 in one operand broadcasts against the others (NumPy's einsum); sizes
    that differ otherwise raise NumPy's ValueError, from the cached plan too."""
    rng = numpy.random.default_rng(len(s1) + len(s2))
    ops = [rng.standard_normal(s1), rng.standard_normal(s2)]
    for _ in range(2):   # the second call takes the cached plan
        try:
            exp = numpy.einsum(sub, *ops)
        except ValueError as e:
            with pytest.raises(ValueError, match="could not be broadcast"):
                cupynum.einsum(sub, *[cupynum.array(o) for o in ops])
            assert "could not be broadcast" in str(e)
            continue
        got = cupynum.einsum(sub, *[cupynum.array(o) for o in ops])
        numpy.testing.assert_allclose(numpy.asarray(got), exp, rtol=1e-13)


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind"])
def test_einsum_casting_of_operands_to_the_result_dtype(casting):
    """casting= applies to every operand cast to the result's dtype, with or without dtype=, as
    NumPy's iterator applies it (int64 and float32 operands into float64)."""
    a, b = numpy.ones((3, 4), dtype=numpy.int64), numpy.arange(4.0, dtype=numpy.float32)
    for dtype in (None, numpy.float64):
        try:
            exp = numpy.einsum("ij,j->i", a, b, casting=casting, dtype=dtype)
        except TypeError as e:
            with pytest.raises(TypeError, match="according to the rule"):
                cupynum.einsum("ij,j->i", cupynum.array(a), cupynum.array(b), casting=casting, dtype=dtype)
            assert "according to the rule" in str(e)
            continue
        got = cupynum.einsum("ij,j->i", cupynum.array(a), cupynum.array(b), casting=casting, dtype=dtype)
        numpy.testing.assert_array_equal(numpy.asarray(got), exp)


# ---- the recipe of a two-operand matmul einsum (_einsum._RECIPES) --------------------------------

MATMUL_LIKE = ["ij,jk->ik", "ij,jk", "i,i", "ba,ca->bc", "ijk,jil->kl", "ijk,k->ij", "bij,bjk->bik",
               "ij,j", "...ij,...jk->...ik", "ij,jk->ki"]


@pytest.mark.parametrize("case", CASES + [("ij,jk->ki", [(3, 4), (4, 5)])], ids=_case_id)
@pytest.mark.parametrize("optimize", [False, True, "greedy"], ids=str)
@pytest.mark.parametrize("dt", ["float64", "int32", "bool", "float16", "complex64"])
def test_einsum_repeated_calls_match_numpy(case, optimize, dt):
    """The first call of a (subscripts, shapes, dtypes) plans and keeps a recipe where one
    matmul does it; the next calls run the recipe: each call is NumPy's (type, dtype, values)."""
    subs, shapes = case
    ns = [data(s, dt, k) for k, s in enumerate(shapes)]
    cs = [cupynum.array(n) for n in ns]
    tol = 1e-2 if dt == "float16" else 0.0
    for _ in range(3):
        check(cupynum.einsum(subs, *cs, optimize=optimize), numpy.einsum(subs, *ns, optimize=optimize),
              rtol=tol)
    if len(cs) == 2:
        key = (subs, optimize, cs[0].shape, cs[1].shape, cs[0].dtype, cs[1].dtype)
        took = bool(cupynum._einsum._RECIPES.get(key))
        assert took == (subs in MATMUL_LIKE and dt != "float16"), (key, took)


@pytest.mark.parametrize("optimize", [False, True])
def test_einsum_recipe_not_taken(optimize):
    """Forms that must not take a kept recipe, called after it was kept: another dtype of one
    operand, a size-1 subscript that broadcasts, NumPy operands, out=, dtype=, casting=, and
    casting that NumPy rejects; each is NumPy's outcome."""
    a, b = data((3, 4), "float64", 0), data((4, 5), "float64", 1)
    ca, cb = cupynum.array(a), cupynum.array(b)
    for _ in range(2):
        check(cupynum.einsum("ij,jk->ik", ca, cb, optimize=optimize), numpy.einsum("ij,jk->ik", a, b, optimize=optimize))
    assert cupynum._einsum._RECIPES[("ij,jk->ik", optimize, (3, 4), (4, 5), ca.dtype, cb.dtype)]
    b32 = b.astype(numpy.float32)
    check(cupynum.einsum("ij,jk->ik", ca, cupynum.array(b32), optimize=optimize),
          numpy.einsum("ij,jk->ik", a, b32, optimize=optimize))
    b1 = b[:1]
    check(cupynum.einsum("ij,jk->ik", ca[:, :1], cupynum.array(b1), optimize=optimize),
          numpy.einsum("ij,jk->ik", a[:, :1], b1, optimize=optimize))
    a1 = a[:, :1]
    check(cupynum.einsum("ij,jk->ik", cupynum.array(a1), cb, optimize=optimize),
          numpy.einsum("ij,jk->ik", a1, b, optimize=optimize))
    check(cupynum.einsum("ij,jk->ik", a, b, optimize=optimize), numpy.einsum("ij,jk->ik", a, b, optimize=optimize))
    out = cupynum.zeros((3, 5))
    r = cupynum.einsum("ij,jk->ik", ca, cb, out=out, optimize=optimize)
    assert r is out
    check(out, numpy.einsum("ij,jk->ik", a, b))
    check(cupynum.einsum("ij,jk->ik", ca, cb, dtype="complex128", optimize=optimize),
          numpy.einsum("ij,jk->ik", a, b, dtype="complex128", optimize=optimize))
    check(cupynum.einsum("ij,jk->ik", ca, cb, casting="no", optimize=optimize),
          numpy.einsum("ij,jk->ik", a, b, casting="no", optimize=optimize))
    with pytest.raises(ValueError) as en:
        numpy.einsum("ij,jk->ik", a, b, casting="bogus", optimize=optimize)
    with pytest.raises(ValueError) as ec:
        cupynum.einsum("ij,jk->ik", ca, cb, casting="bogus", optimize=optimize)
    assert str(ec.value) == str(en.value)
    with pytest.raises(ValueError) as en:
        numpy.einsum("ij,jk->ik", a, a, optimize=optimize)
    with pytest.raises(ValueError) as ec:
        cupynum.einsum("ij,jk->ik", ca, ca, optimize=optimize)
    assert str(ec.value) == str(en.value)


def test_einsum_recipe_results_are_fresh():
    """A recipe's result is a new array (a view of the matmul's output, never of an operand):
    writing it leaves the operands as they were, as NumPy's."""
    a, b = data((3, 4), "int64", 0), data((4, 5), "int64", 1)
    ca, cb = cupynum.array(a), cupynum.array(b)
    for _ in range(2):
        r = cupynum.einsum("ij,jk->ki", ca, cb)
    r[...] = 7
    check(ca, a)
    check(cb, b)
    check(cupynum.einsum("ij,jk->ki", ca, cb), numpy.einsum("ij,jk->ki", a, b))


@pytest.mark.parametrize("subs,shapes", [("ij,jk->ik", [(4, 4), (4, 4)]), ("bij,bjk->bik", [(3, 3, 3)] * 2),
                                         ("ijk,jil->kl", [(3, 3, 4), (3, 3, 5)]), ("ij,j->i", [(5, 5), (5,)])])
def test_einsum_recipe_on_views(subs, shapes):
    """A recipe kept for contiguous operands runs on transposed and reversed views of the same
    shapes (its reshapes copy where no view has the shape): NumPy's values."""
    ns = [data(s, "float64", k) for k, s in enumerate(shapes)]
    cs = [cupynum.array(n) for n in ns]
    for _ in range(2):
        check(cupynum.einsum(subs, *cs), numpy.einsum(subs, *ns))
    for f in (lambda x: x.T if x.ndim == 2 else x[::-1] if x.ndim == 1 else x.transpose(1, 0, 2),
              lambda x: x[::-1]):
        check(cupynum.einsum(subs, *[f(c) for c in cs]), numpy.einsum(subs, *[f(n) for n in ns]))
