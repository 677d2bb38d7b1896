"""cupynum.linalg: numpy.linalg over cupynum arrays.

The products (`matmul`, `matrix_power`, `multi_dot`, `outer`, `tensordot`, `vecdot`:
cupynum/_products.py) run on BLAS; the factorizations and what is built on them (`solve`, `inv`,
`det`, `slogdet`, `cholesky`, `qr`, `eigh`, `eigvalsh`, `eig`, `eigvals`, `svd`, `svdvals`,
`lstsq`, `pinv`, `matrix_rank`, `cond`, `norm`, `matrix_norm`, `vector_norm`, `tensorsolve`,
`tensorinv`, `cross`, `trace`: cupynum/linalg/_linalg.py) on LAPACK; `diagonal` and
`matrix_transpose` are views (cupynum/_views.py).  A name NumPy adds later falls back to NumPy on
gathered data (cupynum/_fallback.py), warning once per function.  LinAlgError is NumPy's own, so
`except numpy.linalg.LinAlgError` catches cupynum's errors too."""

import numpy.linalg as _nplinalg
from numpy.linalg import LinAlgError  # noqa: F401

from .. import _fallback
from .._products import linalg_matmul as matmul  # noqa: F401
from .._products import linalg_outer as outer  # noqa: F401
from .._products import linalg_tensordot as tensordot  # noqa: F401
from .._products import linalg_vecdot as vecdot  # noqa: F401
from .._products import matrix_power, multi_dot  # noqa: F401
from ._linalg import (  # noqa: F401
    cholesky, cond, cross, det, eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_norm,
    matrix_rank, norm, pinv, qr, slogdet, solve, svd, svdvals, tensorinv, tensorsolve, trace,
    vector_norm)


def __getattr__(name):
    return _fallback.module_getattr(globals(), _nplinalg, "numpy.linalg", name)


def __dir__():
    return _fallback.module_dir(globals(), _nplinalg)
