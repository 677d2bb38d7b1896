"""cupynum.testing: numpy.testing, accepting cupynum arrays.

Every public function of numpy.testing is re-exported; the assertion functions gather cupynum
arrays (also inside lists, tuples and dicts) into NumPy arrays before comparing, so messages and
tolerances are NumPy's own.  The assertions that call a function with the arguments they are given
(`assert_raises(E, f, *args)`, `assert_warns`, `assert_no_warnings`, `assert_no_gc_cycles`) pass
them on untouched: `f` must see the caller's arrays, which it may write into."""
import functools as _functools

import numpy.testing as _nt
from numpy.testing import *  # noqa: F401,F403

from ._fallback import gather as _gather


def _accepting_cupynum(f):
    @_functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*_gather(args), **_gather(kwargs))
    return wrapper


_CALLING = {"assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings",
            "assert_no_gc_cycles"}

for _name in dir(_nt):
    _f = getattr(_nt, _name)
    if _name.startswith("assert_") and callable(_f) and _name not in _CALLING:
        globals()[_name] = _accepting_cupynum(_f)
del _name, _f
