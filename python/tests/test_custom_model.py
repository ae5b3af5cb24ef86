"""GO-UCB with a parametric model written in Python (the Arrhenius example of examples/custom_model)."""
import pathlib
import sys

import numpy as np
import pytest

import optimist

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import arrhenius  # noqa: E402


class Quadratic(optimist.ParametricModel):
    """f_w(x) = w0 - w1 (x0 - w2)^2 on [0, 1]: right derivatives unless told otherwise."""

    n_params = 3

    def __init__(self, slip=0.0, shape=None, fail=None):
        self.slip, self.shape, self.fail = slip, shape, fail

    def value(self, w, X):
        if self.fail:
            raise self.fail
        return w[0] - w[1] * (X[:, 0] - w[2]) ** 2

    def grad_w(self, w, X):
        d = X[:, 0] - w[2]
        g = np.column_stack([np.ones(len(X)), -(d ** 2), 2 * w[1] * d * (1 + self.slip)])
        return g if self.shape is None else g[:, :self.shape]

    def grad_x(self, w, X):
        return (-2 * w[1] * (X[:, 0] - w[2]))[:, None]


def test_the_arrhenius_derivatives_agree_with_finite_differences():
    model = arrhenius.ArrheniusYield()
    for seed in range(3):
        errors = optimist.check_gradients(model, 2, w=np.array([0.2, 0.6, 0.8, -0.7]), seed=seed)
        assert max(errors.values()) < 1e-6, errors
    optimist.check_model(model, 2)  # GO-UCB's own check passes


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_go_ucb_with_the_physics_model_finds_the_reactors_best_condition(seed):
    model = arrhenius.ArrheniusYield()
    regret, res = arrhenius.run_reactor(seed, model=model)
    assert regret <= 0.01 * arrhenius.BEST_YIELD, res.recommended_x
    assert res.nfev == 15 and res.optimizer.model is model
    assert res.optimizer.options["name"] == "go-ucb"


def test_a_python_model_runs_deterministically_in_ask_tell():
    def points(seed):
        opt = optimist.Optimizer([(0.0, 1.0)], "go-ucb", seed=seed, budget=10, model=Quadratic())
        xs = []
        for _ in range(10):
            t = opt.ask()
            xs.append(float(t.x[0]))
            opt.tell(t, (t.x[0] - 0.3) ** 2)  # minimized: the model describes its negative
        return xs, opt.recommend()

    (a, rec_a), (b, _) = points(4), points(4)
    assert a == b
    assert abs(rec_a[0] - 0.3) < 0.05


def test_wrong_models_are_refused_naming_what_is_wrong():
    # The advice names the Python methods (it named the C++ ones, gradient_w / mixed_product).
    with pytest.raises(ValueError, match=r"finite differences.*Fix grad_w / grad_x of the model \(optimist.check_gradients"):
        optimist.Optimizer([(0.0, 1.0)], "go-ucb", budget=10, model=Quadratic(slip=0.5))
    with pytest.raises(ValueError, match=r"grad_w\(w, X\) with X of shape \(1, 1\) must return an array of shape \(1, 3\), got \(1, 2\)"):
        optimist.Optimizer([(0.0, 1.0)], "go-ucb", budget=10, model=Quadratic(shape=2))
    with pytest.raises(ZeroDivisionError, match="model blew up"):  # the model's own exception, unchanged
        optimist.Optimizer([(0.0, 1.0)], "go-ucb", budget=10, model=Quadratic(fail=ZeroDivisionError("model blew up")))

    class NoGradX:
        n_params = 2

        def value(self, w, X):
            return X[:, 0]

        grad_w = value

    with pytest.raises(ValueError, match=r"model NoGradX: needs a method grad_x\(w, X\)"):
        optimist.Optimizer([(0.0, 1.0)], "go-ucb", budget=10, model=NoGradX())
    with pytest.raises(ValueError, match="n_params must be a positive integer"):
        bad = Quadratic()
        bad.n_params = 0
        optimist.Optimizer([(0.0, 1.0)], "go-ucb", budget=10, model=bad)
    with pytest.raises(ValueError, match="a parametric model of your own needs go-ucb"):
        optimist.Optimizer([(0.0, 1.0)], "gp-ei", model=Quadratic())


def test_model_errors_during_a_run_propagate_with_their_type():
    class FailsLater(Quadratic):
        calls = 0

        def grad_x(self, w, X):
            FailsLater.calls += 1
            if FailsLater.calls > 50:
                raise KeyError("lookup table missing")
            return super().grad_x(w, X)

    opt = optimist.Optimizer([(0.0, 1.0)], "go-ucb", budget=10, model=FailsLater())
    with pytest.raises(KeyError, match="lookup table missing"):
        for _ in range(10):
            t = opt.ask()
            opt.tell(t, float(t.x[0]))
