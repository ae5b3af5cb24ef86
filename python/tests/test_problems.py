"""optimist.problems: the CLI's benchmark functions with their optima, usable as objectives."""
import pickle

import numpy as np
import pytest

import optimist
from optimist import problems


def test_catalog_lists_the_cli_problems():
    names = problems.names()
    assert {"branin", "hartmann6", "styblinski_tang", "rastrigin", "ackley"} <= set(names)
    entry = next(p for p in problems.catalog() if p["name"] == "styblinski_tang")
    assert entry["max_dim"] is None and entry["default_dim"] == 20 and entry["direction"] == "maximize"


@pytest.mark.parametrize("name, dim", [("branin", None), ("hartmann6", None), ("ackley", 3), ("styblinski_tang", 4),
                                       ("levy", 2), ("himmelblau", None)])
def test_known_optima_have_the_optimal_value(name, dim):
    p = problems.get(name, dim)
    assert p.f_star is not None and p.optima
    for x in p.optima:
        assert p.f(x) == pytest.approx(p.f_star, abs=1e-4)
        assert p(x) == p.f(x)  # no noise: the observed value is f
    assert p.space.dim == p.dim == len(p.optima[0])


def test_noise_is_seeded_and_f_stays_noise_free():
    a, b = problems.get("branin", noise=0.5, noise_seed=3), problems.get("branin", noise=0.5, noise_seed=3)
    x = np.array([1.0, 2.0])
    draws = [a(x) for _ in range(5)]
    assert draws == [b(x) for _ in range(5)] and len(set(draws)) == 5
    assert np.std(np.array(draws) - a.f(x)) > 0.05


def test_attribute_access_pickling_and_errors():
    assert problems.branin.name == "branin" and problems.branin.direction == "minimize"
    p = pickle.loads(pickle.dumps(problems.get("rastrigin", 3, noise=0.1)))
    assert p.dim == 3 and p.noise == 0.1
    with pytest.raises(ValueError, match="unknown problem 'branim'"):
        problems.get("branim")
    with pytest.raises(ValueError, match="dim"):
        problems.get("branin", 3)
    with pytest.raises(ValueError, match="outside"):
        problems.branin.f([20.0, 1.0])
    with pytest.raises(ValueError):
        problems.branin([1.0, 2.0, 3.0])  # wrong dimension, never a read out of range
    with pytest.raises(AttributeError):
        problems.no_such_problem


def test_objective_for_run_gives_a_runs_noise_draw_by_draw():
    # A user's own loop, compared with ours on the same noise: the k-th call gets what the k-th
    # evaluation of minimize(problem, seed=...) observed.
    problem = problems.get("branin", noise=0.5)
    res = optimist.minimize(problem, budget=6, seed=11, algorithm="random")
    observed = problem.objective_for_run(11)
    ys = [observed(x) for x in res.x_iters]
    assert ys == list(res.func_vals)
    assert ys != [problem(x) for x in res.x_iters]  # the problem itself draws from another stream
