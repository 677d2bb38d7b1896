"""cupynum.testing: numpy.testing, accepting cupynum arrays.

Every public function of numpy.testing is re-exported; the assertion functions gather cupynum
arrays (also inside lists, tuples and dicts) into NumPy arrays before comparing, so messages and
tolerances are NumPy's own."""
import functools as _functools

import numpy.testing as _nt
from numpy.testing import *  # noqa: F401,F403

from ._array_api import _to_numpy_tree


def _accepting_cupynum(f):
    @_functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*_to_numpy_tree(args), **_to_numpy_tree(kwargs))
    return wrapper


for _name in dir(_nt):
    _f = getattr(_nt, _name)
    if _name.startswith("assert_") and callable(_f) and _name != "assert_raises" \
            and _name != "assert_raises_regex" and _name != "assert_warns":
        globals()[_name] = _accepting_cupynum(_f)
del _name, _f
