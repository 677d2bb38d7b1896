"""cupynum.testing is numpy.testing; cupynum arrays convert through __array__."""
from numpy.testing import *  # noqa: F401,F403
