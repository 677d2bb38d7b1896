"""Floating-point error handling: numpy.errstate / seterr / geterr / seterrcall / geterrcall
that flush cupynum's op queue where the state changes.

NumPy's error state is NumPy's own (one context variable); cupynum's element-wise ops capture it
when they are submitted and report (warn, raise, call, print, log) when they execute, at a flush.
Flushing on entry and exit of `errstate` (and around `seterr`/`seterrcall`) makes the reports of
the ops queued inside a `with errstate(...)` block appear inside that block, as with NumPy.
Collective under MPI (a flush): every rank runs the same program, so every rank calls these at
the same point."""

import functools

import numpy as _np

from . import _core

__all__ = ["errstate", "seterr", "geterr", "seterrcall", "geterrcall"]


class errstate(_np.errstate):
    __doc__ = _np.errstate.__doc__
    __slots__ = ()

    def __enter__(self):
        _core.sync()
        return super().__enter__()

    def __exit__(self, *exc_info):
        try:
            _core.sync()
        finally:
            super().__exit__(*exc_info)

    def __call__(self, func):
        inner = super().__call__(func)

        @functools.wraps(func)
        def flushing(*args, **kwargs):
            _core.sync()
            return inner(*args, **kwargs)
        return flushing


@functools.wraps(_np.seterr)
def seterr(all=None, divide=None, over=None, under=None, invalid=None):
    _core.sync()
    return _np.seterr(all=all, divide=divide, over=over, under=under, invalid=invalid)


@functools.wraps(_np.geterr)
def geterr():
    _core.sync()
    return _np.geterr()


@functools.wraps(_np.seterrcall)
def seterrcall(func):
    _core.sync()
    return _np.seterrcall(func)


@functools.wraps(_np.geterrcall)
def geterrcall():
    _core.sync()
    return _np.geterrcall()
