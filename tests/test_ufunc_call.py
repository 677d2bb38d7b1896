"""The ufunc call's keywords swept against NumPy: out= (array, tuple, None, positional, wrong
shapes and counts, read-only, NumPy's own arrays, non-arrays), where= (arrays, broadcast masks,
scalars, sequences, wrong dtypes and shapes), casting= (every value), dtype=, signature= (tuples,
strings, None) and order=/subok=, alone and combined.  Every case compares with NumPy's call: the
result (and identity with the given outputs), the outputs' contents, the UserWarnings, and on
failure the exception's type and message."""

import warnings

import numpy
import pytest

import cupynum
from conftest import check, sample

pytestmark = pytest.mark.device   # the call's paths on device-resident stores too


def _cp(x):
    """cupynum's copy of a NumPy operand (tuples entry by entry; scalars as they are)."""
    if isinstance(x, tuple):
        return tuple(_cp(e) for e in x)
    if isinstance(x, numpy.ndarray):
        c = cupynum.array(x)
        if not x.flags.writeable:
            c.flags.writeable = False
        return c
    return x


def _outcome(f, args, kwargs):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            r, e = f(*args, **kwargs), None
        except Exception as exc:  # noqa: BLE001
            r, e = None, exc
    return r, e, [str(w.message) for w in seen if w.category is UserWarning]


def _same(name, args, kwargs, masked=None, rtol=0.0):
    """numpy.<name>(*args, **kwargs) and cupynum.<name> on copies: the same outcome.  `masked`:
    the where mask; a result not given as an output is compared where it is true only (NumPy
    leaves the other entries uninitialized).  rtol: for results of transcendental loops."""
    cargs = _cp(args)
    ckw = {k: _cp(v) if k in ("out", "where") else v for k, v in kwargs.items()}
    what = f"{name}{tuple(type(a).__name__ for a in args)} {kwargs!r}"
    r, e, w = _outcome(getattr(numpy, name), args, kwargs)
    cr, ce, cw = _outcome(getattr(cupynum, name), cargs, ckw)
    if e is not None:
        assert ce is not None, f"{what}: NumPy raised {e!r}, cupynum returned {cr!r}"
        assert type(ce) is type(e), (what, e, ce)
        assert str(ce) == str(e), (what, str(e), str(ce))
    else:
        assert ce is None, f"{what}: cupynum raised {ce!r}"
        assert cw == w, (what, w, cw)
        outs = kwargs.get("out", args[getattr(numpy, name).nin:])
        outs = outs if isinstance(outs, tuple) else (outs,)
        couts = ckw.get("out", cargs[getattr(numpy, name).nin:])
        couts = couts if isinstance(couts, tuple) else (couts,)
        rs, crs = (r, cr) if isinstance(r, tuple) else ((r,), (cr,))
        assert len(rs) == len(crs), what
        for x, cx in zip(rs, crs):
            k = next((j for j, o in enumerate(outs) if o is x), None)
            if k is not None:
                assert cx is couts[k], f"{what}: the result is not the given output"
            elif masked is not None:
                m = numpy.broadcast_to(masked, numpy.shape(x))
                numpy.testing.assert_array_equal(numpy.asarray(cx)[m], x[m], err_msg=what)
                assert numpy.asarray(cx).dtype == x.dtype and numpy.shape(cx) == x.shape, what
            else:
                check(cx, x, rtol)
    for o, co in zip(kwargs.get("out", ()) if isinstance(kwargs.get("out"), tuple) else
                     (kwargs.get("out"),), ckw.get("out", ()) if isinstance(ckw.get("out"), tuple)
                     else (ckw.get("out"),)):
        if isinstance(o, numpy.ndarray):   # outputs hold the same values afterwards (or are intact)
            numpy.testing.assert_array_equal(numpy.asarray(co), o, err_msg=what)


X3 = sample((3,), "float64", seed=1, low=1)
X23 = sample((2, 3), "float64", seed=2, low=1)
I3 = sample((3,), "int32", seed=3, low=1)
M23 = sample((2, 3), "bool", seed=4)
M3 = M23[0].copy()


def _readonly(shape, dtype="float64"):
    a = numpy.full(shape, 7, dtype)
    a.flags.writeable = False
    return a


# ---- out= x where= ---------------------------------------------------------------------------

OPS = {"add": (X23, X3), "negative": (X23,), "divmod": (X23, 2.5), "less": (X3, X23),
       "power": (I3, 2)}


def _outs(name):
    """The out= forms for `name` (a function of the result shape (2, 3) and dtype)."""
    nout = getattr(numpy, name).nout
    dt = {"less": "bool", "power": "int32"}.get(name, "float64")
    full = lambda shape=(2, 3), d=dt: numpy.full(shape, 7, d)   # noqa: E731
    forms = {
        "absent": None, "None": "NONE", "array": full(), "tuple": (full(),) * 1,
        "None-tuple": (None,) * nout, "too-many": (full(),) * (nout + 1), "empty-tuple": (),
        "shape(2,1)": full((2, 1)), "shape(3,)": full((3,)), "shape(4,)": full((4,)),
        "shape()": full(()), "shape(1,2,3)": full((1, 2, 3)), "shape(4,2,3)": full((4, 2, 3)),
        "readonly": _readonly((2, 3), dt), "int": 5, "list": [full()],
        "other-dtype": full((2, 3), "int8" if dt != "int32" else "float16"),
    }
    if nout == 2:
        forms.update({"tuple": (full(), full()), "one-given": (None, full()),
                      "second-shape": (full(), full((3,))), "array": full(),
                      "second-readonly": (full(), _readonly((2, 3), dt))})
    return forms


WHERES = {"absent": None, "True": True, "False": False, "full": M23, "row": M3,
          "column": M23[:, :1].copy(), "bad-shape": numpy.ones(4, bool), "np.bool_": numpy.True_,
          "list": [True, False, True], "int-array": numpy.ones(3, "int64"), "None": "NONE",
          "one": 1, "3-d": numpy.ones((4, 1, 1), bool)}


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("out", list(_outs("divmod")))
def test_out_and_where(name, out):
    forms = _outs(name)
    if out not in forms:
        out = "array"
    for wname, where in WHERES.items():
        kw = {}
        o = forms[out]
        if o is not None:
            kw["out"] = None if isinstance(o, str) else \
                tuple(x.copy() if isinstance(x, numpy.ndarray) and x.flags.writeable else x
                      for x in o) if isinstance(o, tuple) else \
                o.copy() if isinstance(o, numpy.ndarray) and o.flags.writeable else o
        if where is not None:
            kw["where"] = None if isinstance(where, str) else where
        # entries NumPy leaves uninitialized (a mask without an output there) are not compared
        masked = numpy.asarray(kw["where"], bool) if "where" in kw else None
        _same(name, OPS[name], kw, masked)


def test_positional_outputs_with_keywords():
    for where in (None, M23, M3):
        kw = {} if where is None else {"where": where}
        _same("add", (X23, X3, numpy.zeros((2, 3))), dict(kw))
        _same("divmod", (X23, 2.5, numpy.zeros((2, 3)), numpy.zeros((2, 3))), dict(kw))
        _same("divmod", (X23, 2.5, numpy.zeros((2, 3))), dict(kw))
        _same("add", (X23, X3, numpy.zeros((2, 3))), {"out": numpy.zeros((2, 3)), **kw})
        _same("add", (X23, X3, numpy.zeros((2, 3)), numpy.zeros((2, 3))), dict(kw))
        _same("add", (X23, X3, numpy.zeros(3)), dict(kw))


def test_out_shape_message_includes_the_outputs():
    # the broadcast shape NumPy names is that of inputs and outputs together
    _same("add", (X3, 1.0), {"out": numpy.zeros((2, 1))})
    _same("add", (X3, 1.0), {"out": numpy.zeros((2, 1)), "where": M23[:, :1].copy()})
    _same("divmod", (X3, 1.0), {"out": (numpy.zeros(3), numpy.zeros((2, 3)))})
    _same("divmod", (X3, 1.0), {"out": (numpy.zeros((2, 3)), numpy.zeros(3))})
    _same("add", (X3, numpy.ones(4)), {"out": numpy.zeros(4)})
    _same("add", (X3, 1.0), {"out": numpy.zeros((2, 3)), "where": numpy.ones(4, bool)})


# ---- dtype= x casting= x out dtypes ---------------------------------------------------------

OPERANDS = {"ff": (X23, X3), "fi": (X23, I3), "i-int": (I3, 3), "bb": (M23, M3),
            "i-float": (I3, 2.5), "u1-300": (numpy.arange(3, dtype="uint8"), 300),
            "f4-complex": (X3.astype("float32"), 1j), "f2-f8": (X3.astype("float16"), X3)}
DTYPES = {"absent": None, "None": "NONE", "f4": "float32", "i8": numpy.int64, "c16": complex,
          "b": numpy.dtype(bool), "S3": "S3", ">f8": ">f8", "bogus": "bogus", "f2": "e"}
CASTINGS = [None, "no", "equiv", "safe", "same_kind", "unsafe", "bogus", "NONE"]


@pytest.mark.parametrize("operands", list(OPERANDS))
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_dtype_and_casting(operands, dtype):
    for casting in CASTINGS:
        for out in (None, "float64", "int32", "bool"):
            kw = {}
            if DTYPES[dtype] is not None:
                kw["dtype"] = None if DTYPES[dtype] == "NONE" else DTYPES[dtype]
            if casting is not None:
                kw["casting"] = None if casting == "NONE" else casting
            if out is not None:
                kw["out"] = numpy.full((2, 3), 3, out)
            _same("add", OPERANDS[operands], kw)


# ---- signature= --------------------------------------------------------------------------------

SIGNATURES = {"None": None, "outputs": (None, None, "float32"), "all": ("f8", "f8", "f8"),
              "inputs": ("f4", None, None), "string": "dd->d", "int-string": "ii->i",
              "short-string": "ddd", "bad-string": "d->d", "wrong-length": (None, None),
              "f4-types": (numpy.float32, numpy.float32, numpy.float32), "bogus": ("x", None, None),
              "mixed": ("f8", "i4", None)}


@pytest.mark.parametrize("operands", ["ff", "fi", "i-int", "bb", "i-float"])
@pytest.mark.parametrize("sig", list(SIGNATURES))
def test_signature(operands, sig):
    for casting in (None, "unsafe", "same_kind", "no"):
        for extra in ({}, {"dtype": "float32"}, {"out": numpy.zeros((2, 3))},
                      {"where": M3, "out": numpy.zeros((2, 3))}):
            kw = {"signature": SIGNATURES[sig], **extra}
            if casting is not None:
                kw["casting"] = casting
            _same("add", OPERANDS[operands], kw)
    _same("add", OPERANDS[operands], {"sig": SIGNATURES[sig]})   # NumPy's older spelling
    _same("power", OPERANDS[operands], {"signature": SIGNATURES[sig], "casting": "unsafe"},
          rtol=1e-6)


# ---- order= and subok= -----------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F", "A", "K", "c", "f", None, "X", "CF", 1])
@pytest.mark.parametrize("subok", ["absent", True, False, None, 3])
def test_order_and_subok(order, subok):
    for extra in ({}, {"out": numpy.zeros((2, 3))}, {"dtype": "float32"}, {"casting": "bogus"}):
        kw = {"order": order, **extra}
        if subok != "absent":
            kw["subok"] = subok
        _same("add", (X23, X3), kw)
        _same("negative", (X23,), dict(kw))


def test_keyword_errors_come_before_read_only_output_and_after_it_as_numpy():
    for kw in ({"casting": "bogus"}, {"dtype": "S3"}, {"order": "X"}, {"where": M3}, {}):
        _same("add", (X23, X3), {"out": _readonly((2, 3)), **kw})
        _same("add", (X23, numpy.ones(4)), {"out": _readonly((2, 3)), **kw})


def test_repeated_keyword_calls_use_one_loop():
    # the second call of a key comes from the C cache: it must still validate what differs
    for _ in range(2):
        _same("add", (I3, 3), {"dtype": "int8", "casting": "unsafe"})
        _same("add", (I3, 300), {"dtype": "int8", "casting": "unsafe"})
        _same("add", (I3, 3), {"dtype": "int8"})
        _same("add", (X3, X3), {"dtype": ">f8"})
        _same("add", (X3, X3), {"dtype": "f8"})
        _same("less", (I3, 2 ** 40), {"casting": "unsafe"})
        _same("power", (I3, -1), {"casting": "unsafe"})
        _same("power", (I3, numpy.array([1, -1, 2])), {"casting": "same_kind"})
