"""The seed programs, written exactly as a NumPy user would write them and run once with `numpy`
and once with `cupynum` as the module: the 5-point stencil on aliasing views (bitwise equal to
NumPy) and Monte Carlo pi."""

import numpy
import pytest

import cupynum
from conftest import check
from conftest import stencil as run_stencil


def stencil(np, shape, iterations, dtype=float, init=None):
    grid = np.zeros(shape, dtype=dtype)
    if init is not None:
        grid[:] = init
    grid[0, :] = 1.0
    grid[-1, :] = -0.5
    grid[:, 0] = 0.25
    return run_stencil(np, grid, iterations)


@pytest.mark.parametrize("shape", [(64, 64), (50, 37), (3, 3), (5, 200), (129, 7)], ids=repr)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32], ids=lambda d: numpy.dtype(d).name)
def test_stencil_bitwise(shape, dtype):
    expected = stencil(numpy, shape, 50, dtype)
    got = stencil(cupynum, shape, 50, dtype)
    check(got, expected)  # exact: the same IEEE operations in the same order, element by element
    check(got.sum(), expected.sum(), rtol=1e-12 if dtype == numpy.float64 else 1e-5)


@pytest.mark.parametrize("shape", [(64, 64), (50, 37)], ids=repr)
def test_stencil_bitwise_random_start(shape):
    init = numpy.random.default_rng(42).random(shape)
    expected = stencil(numpy, shape, 50, init=init)
    got = stencil(cupynum, shape, 50, init=init)
    check(got, expected)


def test_stencil_views_alias_the_grid():
    """After the loop the views still alias the grid: a write through `center` shows in `north`."""
    for np in (numpy, cupynum):
        grid = np.zeros((6, 6))
        center = grid[1:-1, 1:-1]
        north = grid[0:-2, 1:-1]
        center[0, 0] = 7.0
        assert float(north[1, 0]) == 7.0
        assert float(grid[1, 1]) == 7.0


def test_stencil_readme_variant():
    """The README's order of operands (north, south, east, west) on a 102x102 grid."""
    def run(np):
        grid = np.zeros((102, 102))
        grid[0, :] = 1.0
        center = grid[1:-1, 1:-1]
        north, south = grid[0:-2, 1:-1], grid[2:, 1:-1]
        east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]
        for _ in range(30):
            center[:] = 0.2 * (center + north + south + east + west)
        return grid
    expected, got = run(numpy), run(cupynum)
    check(got, expected)
    check(got.sum(), expected.sum(), rtol=1e-12)


def monte_carlo_pi(np, n):
    x = np.random.uniform(0.0, 1.0, n)
    y = np.random.uniform(0.0, 1.0, n)
    inside = np.sum(x * x + y * y <= 1.0)
    return x, y, inside, 4.0 * inside / n


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_monte_carlo_pi(seed):
    n = 1_000_000
    cupynum.random.seed(seed)
    x, y, inside, pi = monte_carlo_pi(cupynum, n)
    assert isinstance(x, cupynum.ndarray) and isinstance(y, cupynum.ndarray)
    xn, yn = numpy.asarray(x), numpy.asarray(y)
    expected_inside = numpy.sum(xn * xn + yn * yn <= 1.0)
    check(inside, expected_inside)
    check(pi, 4.0 * expected_inside / n)
    assert abs(pi - numpy.pi) < 0.05
    # numpy's own run of the same program gives a comparable estimate
    numpy.random.seed(seed)
    _, _, _, pi_numpy = monte_carlo_pi(numpy, n)
    assert abs(pi - pi_numpy) < 0.05
