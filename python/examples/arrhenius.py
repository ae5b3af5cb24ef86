"""GO-UCB with a physics model of your own, in Python: the Arrhenius example of
examples/custom_model (C++), written with numpy.

A materials scientist's yield law

    y(T, p) = A exp(-(Ea / k_B) (1/T - 1/T_ref)) * p^n / (1 + K p)

(a thermally activated rate times a Langmuir-Hinshelwood pressure term) with parameters
w = (log A, Ea [eV], n, log K [1/bar]), all O(1). GO-UCB fits w to the experiments and explores
optimistically in its confidence ellipsoid; with the right family it finds a simulated reactor's
best temperature and pressure in 15 noisy experiments.

    /usr/bin/python3 python/examples/arrhenius.py
"""
import math

import numpy as np

import optimist

K_B = 8.617333262e-5  # Boltzmann's constant, eV / K
T_REF, T_MIN, T_MAX = 500.0, 300.0, 700.0  # K
P_MIN, P_MAX = 0.1, 10.0  # bar


class ArrheniusYield(optimist.ParametricModel):
    """f_w(x) on unit-cube points x = (temperature, pressure), mapped as the Space below maps them:
    T = 300 K + 400 K x0, p = 0.1 bar * 100^x1 (log scale)."""

    n_params = 4
    name = "arrhenius_yield"

    @staticmethod
    def _parts(w, X):
        temp = T_MIN + (T_MAX - T_MIN) * X[:, 0]
        log_p = math.log(P_MIN) + math.log(P_MAX / P_MIN) * X[:, 1]
        K_p = np.exp(w[3] + log_p)
        rate = np.exp(w[0] - w[1] / K_B * (1.0 / temp - 1.0 / T_REF))
        return temp, log_p, K_p, rate * np.exp(w[2] * log_p) / (1.0 + K_p)

    def value(self, w, X):
        return self._parts(w, X)[3]

    def grad_w(self, w, X):
        temp, log_p, K_p, f = self._parts(w, X)
        return np.column_stack([f, -f * (1.0 / temp - 1.0 / T_REF) / K_B, f * log_p, -f * K_p / (1.0 + K_p)])

    def grad_x(self, w, X):
        temp, log_p, K_p, f = self._parts(w, X)
        d_temp = f * w[1] / (K_B * temp ** 2) * (T_MAX - T_MIN)
        d_pressure = f * (w[2] - K_p / (1.0 + K_p)) * math.log(P_MAX / P_MIN)
        return np.column_stack([d_temp, d_pressure])

    def sample_params(self, rng):
        """A prior over plausible kinetics: the fit's starting points."""
        return np.array([rng.normal(), rng.uniform(0.2, 1.2), rng.uniform(0.3, 1.5), rng.normal()])


SPACE = {"temperature_K": optimist.Float(T_MIN, T_MAX), "pressure_bar": optimist.Float(P_MIN, P_MAX, log=True)}
# The reactor follows the model's own law at parameters unknown to the optimizer: yield 1.5 at
# 500 K, Ea = 0.45 eV, order 0.5, K = 1 / bar. Its best condition is T = 700 K, p = n / (K (1 - n)) = 1 bar.
W_TRUE = np.array([math.log(1.5), 0.45, 0.5, 0.0])


def true_yield(p):
    unit = np.array([[(p["temperature_K"] - T_MIN) / (T_MAX - T_MIN),
                      math.log(p["pressure_bar"] / P_MIN) / math.log(P_MAX / P_MIN)]])
    return float(ArrheniusYield().value(W_TRUE, unit)[0])


BEST_YIELD = true_yield({"temperature_K": 700.0, "pressure_bar": 1.0})


def run_reactor(seed, algorithm="go-ucb", model=None, budget=15, noise_sd=0.3):
    """One campaign of `budget` noisy experiments (noise sd 0.3, 2% of the best yield); returns the
    simple regret of the recommendation and the result."""
    noise = np.random.default_rng(100 + seed)
    res = optimist.maximize(lambda p: true_yield(p) + noise_sd * noise.normal(), SPACE, algorithm=algorithm,
                            model=model, budget=budget, seed=seed)
    return BEST_YIELD - true_yield(res.recommended_x), res


def main(runs=5):
    model = ArrheniusYield()
    errors = optimist.check_gradients(model, 2, w=np.array([math.log(1.2), 0.6, 0.8, math.log(0.5)]), seed=7)
    print("derivatives vs finite differences:", {k: f"{v:.1e}" for k, v in errors.items()})
    solved, regrets = 0, {}
    for seed in range(1, runs + 1):
        regret, res = run_reactor(seed, model=model)
        print(f"seed {seed}: recommended T = {res.recommended_x['temperature_K']:5.1f} K, "
              f"p = {res.recommended_x['pressure_bar']:5.2f} bar, regret {regret:.4f} of {BEST_YIELD:.3f}")
        solved += regret <= 0.01 * BEST_YIELD
        regrets.setdefault("go-ucb with the physics model", []).append(regret)
    print(f"GO-UCB with the physics model: within 1% of the best yield in {solved} of {runs} runs of 15 experiments")
    for algorithm in ("go-ucb", "gp-ei", "random"):
        regrets[algorithm] = [run_reactor(seed, algorithm)[0] for seed in range(1, runs + 1)]
    print("mean simple regret after 15 experiments: " + ", ".join(f"{k} {np.mean(v):.4f}" for k, v in regrets.items()))
    return solved


if __name__ == "__main__":
    main()
