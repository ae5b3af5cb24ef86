"""Six hold-out tuning tasks (none in docs/robust.md's suites).

Each task: name -> (space builder, objective). Objective takes a dict and returns a loss to
minimize; deterministic for a given point (fixed CV splits and random_state).
Spaces are described once (SPEC) and converted to optimist and Optuna spaces.

Tasks
  svc_classif     4-D  SVC on make_classification(400x20, rs=11): kernel {rbf, sigmoid, poly},
                       C log [1e-3, 1e3], gamma log [1e-4, 10], degree int 2-4 (poly only)
  et_wine         5-D  ExtraTrees(25 trees) on load_wine: max_depth int 1-20, min_samples_leaf
                       int 1-30, max_features float 0.05-1, criterion {gini, entropy},
                       bootstrap {False, True}
  knn_digits      4-D  KNN on 600 digits (PCA 16 comps in pipeline): n_neighbors log int 1-100,
                       weights {uniform, distance}, p int 1-3, pca_whiten {False, True}
  kridge_friedman 4-D  KernelRidge on make_friedman1(300, noise 1, rs=5): kernel
                       {rbf, laplacian, polynomial}, alpha log [1e-6, 10], gamma log [1e-4, 10],
                       degree int 2-5 (polynomial only); loss = 1 - R^2 (clipped at 2)
  valley_sim      5-D  synthetic 'simulator': curved narrow valley in (log-rate, momentum),
                       + warmup int 0-10, + 'solver' categorical {a, b, c} with offsets, +
                       deterministic pseudo-noise (hash of point, amplitude 0.02)
  few_ints        4-D  synthetic: n_layers Int(1, 4) (only 4 values), heads Int(1, 5),
                       lr log [1e-5, 1e-1], dropout [0, 0.6]; an interaction lr-opt depends on
                       n_layers; narrow optimum in lr
"""
import hashlib
import math
import warnings

import numpy as np

warnings.filterwarnings("ignore")

# ---------------------------------------------------------------- space spec
# ("float", lo, hi, log) | ("int", lo, hi, log) | ("cat", [choices])
SPECS = {}
OBJECTIVES = {}


def task(name, spec):
    def deco(f):
        SPECS[name] = spec
        OBJECTIVES[name] = f
        return f
    return deco


def optimist_space(spec):
    import optimist
    out = {}
    for k, v in spec.items():
        if v[0] == "float":
            out[k] = optimist.Float(v[1], v[2], log=v[3])
        elif v[0] == "int":
            out[k] = optimist.Int(v[1], v[2], log=v[3])
        else:
            out[k] = optimist.Categorical(list(v[1]))
    return out


def optuna_params(trial, spec):
    p = {}
    for k, v in spec.items():
        if v[0] == "float":
            p[k] = trial.suggest_float(k, v[1], v[2], log=v[3])
        elif v[0] == "int":
            p[k] = trial.suggest_int(k, v[1], v[2], log=v[3])
        else:
            p[k] = trial.suggest_categorical(k, list(v[1]))
    return p


_cache = {}


def _data(key, fn):
    if key not in _cache:
        _cache[key] = fn()
    return _cache[key]


def _cv(n_splits=3, seed=0, classif=True):
    from sklearn.model_selection import KFold, StratifiedKFold
    return (StratifiedKFold if classif else KFold)(n_splits=n_splits, shuffle=True, random_state=seed)


# ---------------------------------------------------------------- sklearn tasks
@task("svc_classif", {"kernel": ("cat", ["rbf", "sigmoid", "poly"]),
                      "C": ("float", 1e-3, 1e3, True),
                      "gamma": ("float", 1e-4, 10.0, True),
                      "degree": ("int", 2, 4, False)})
def svc_classif(p):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    X, y = _data("svc", lambda: make_classification(400, 20, n_informative=6, n_redundant=4,
                                                    flip_y=0.03, class_sep=0.8, random_state=11))
    m = make_pipeline(StandardScaler(), SVC(kernel=p["kernel"], C=p["C"], gamma=p["gamma"],
                                            degree=p["degree"], max_iter=20000, coef0=1.0))
    return 1.0 - cross_val_score(m, X, y, cv=_cv()).mean()


@task("et_wine", {"max_depth": ("int", 1, 20, False),
                  "min_samples_leaf": ("int", 1, 30, False),
                  "max_features": ("float", 0.05, 1.0, False),
                  "criterion": ("cat", ["gini", "entropy"]),
                  "bootstrap": ("cat", [False, True])})
def et_wine(p):
    from sklearn.datasets import load_wine
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.model_selection import cross_val_score
    X, y = _data("wine", lambda: load_wine(return_X_y=True))
    m = ExtraTreesClassifier(n_estimators=25, max_depth=p["max_depth"],
                             min_samples_leaf=p["min_samples_leaf"], max_features=p["max_features"],
                             criterion=p["criterion"], bootstrap=p["bootstrap"], random_state=0,
                             n_jobs=1)
    return 1.0 - cross_val_score(m, X, y, cv=_cv(5, 1)).mean()


@task("knn_digits", {"n_neighbors": ("int", 1, 100, True),
                     "weights": ("cat", ["uniform", "distance"]),
                     "p": ("int", 1, 3, False),
                     "n_components": ("int", 2, 40, True)})
def knn_digits(p):
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA
    from sklearn.model_selection import cross_val_score
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline

    def load():
        X, y = load_digits(return_X_y=True)
        idx = np.random.RandomState(3).permutation(len(y))[:600]
        return X[idx], y[idx]
    X, y = _data("digits", load)
    m = make_pipeline(PCA(n_components=p["n_components"], random_state=0),
                      KNeighborsClassifier(n_neighbors=p["n_neighbors"], weights=p["weights"],
                                           p=p["p"]))
    return 1.0 - cross_val_score(m, X, y, cv=_cv(3, 2)).mean()


@task("kridge_friedman", {"kernel": ("cat", ["rbf", "laplacian", "polynomial"]),
                          "alpha": ("float", 1e-6, 10.0, True),
                          "gamma": ("float", 1e-4, 10.0, True),
                          "degree": ("int", 2, 5, False)})
def kridge_friedman(p):
    from sklearn.datasets import make_friedman1
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = _data("fried", lambda: make_friedman1(300, n_features=8, noise=1.0, random_state=5))
    m = make_pipeline(StandardScaler(), KernelRidge(kernel=p["kernel"], alpha=p["alpha"],
                                                    gamma=p["gamma"], degree=p["degree"], coef0=1))
    r2 = cross_val_score(m, X, y, cv=_cv(3, 4, classif=False), scoring="r2").mean()
    return float(min(2.0, 1.0 - r2)) if np.isfinite(r2) else 2.0


# ---------------------------------------------------------------- synthetic tasks
def _hash_noise(p, amp):
    s = repr(sorted((k, round(v, 12) if isinstance(v, float) else v) for k, v in p.items()))
    h = int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "little") / 2**64
    return amp * (2 * h - 1)


@task("valley_sim", {"log_rate": ("float", -6.0, 0.0, False),
                     "momentum": ("float", 0.0, 0.999, False),
                     "warmup": ("int", 0, 10, False),
                     "solver": ("cat", ["a", "b", "c"]),
                     "scale": ("float", 0.1, 100.0, True)})
def valley_sim(p):
    # a narrow curved valley: effective step = rate / (1 - momentum) wants to be ~1e-2,
    # so log_rate - log10(1-momentum) ~ -2 (a valley of width ~0.05 in log units),
    # and along the valley momentum ~0.9 is best (the valley floor is tilted).
    lr = p["log_rate"]
    m = p["momentum"]
    eff = lr - math.log10(1.0 - m + 1e-3)
    valley = 40.0 * (eff + 2.0) ** 2
    floor = 0.5 * (m - 0.9) ** 2
    warm = 0.01 * abs(p["warmup"] - 4)
    solver = {"a": 0.05, "b": 0.0, "c": 0.12}[p["solver"]]
    scale = 0.05 * (math.log10(p["scale"]) - 0.5) ** 2
    val = 0.1 + valley / (1 + valley) + floor + warm + solver + scale
    return val + _hash_noise(p, 0.02)


@task("few_ints", {"n_layers": ("int", 1, 4, False),
                   "heads": ("int", 1, 5, False),
                   "lr": ("float", 1e-5, 1e-1, True),
                   "dropout": ("float", 0.0, 0.6, False)})
def few_ints(p):
    L = p["n_layers"]
    best_log_lr = -2.0 - 0.5 * L          # deeper nets want smaller lr
    d = math.log10(p["lr"]) - best_log_lr
    lr_term = 1.0 - math.exp(-(d / 0.3) ** 2)   # narrow well, flat (1.0) elsewhere
    depth_term = {1: 0.30, 2: 0.12, 3: 0.0, 4: 0.08}[L]
    heads_term = 0.04 * abs(p["heads"] - 2) if L >= 3 else 0.04 * abs(p["heads"] - 4)
    drop_term = 0.5 * (p["dropout"] - 0.1 * L) ** 2
    return lr_term + depth_term + heads_term + drop_term


TASKS = ["svc_classif", "et_wine", "knn_digits", "kridge_friedman", "valley_sim", "few_ints"]


# ---------------------------------------------------------------- diagnostic variants (not in TASKS)
@task("kridge_lap", {"alpha": ("float", 1e-6, 10.0, True),
                     "gamma": ("float", 1e-4, 10.0, True)})
def kridge_lap(p):
    """kridge_friedman with the kernel fixed to laplacian (the winner) and degree dropped."""
    return kridge_friedman({"kernel": "laplacian", "degree": 3, **p})


@task("kridge_nodeg", {"kernel": ("cat", ["rbf", "laplacian", "polynomial"]),
                       "alpha": ("float", 1e-6, 10.0, True),
                       "gamma": ("float", 1e-4, 10.0, True)})
def kridge_nodeg(p):
    """kridge_friedman without the conditional degree parameter (fixed at 3)."""
    return kridge_friedman({"degree": 3, **p})


DIAG_TASKS = ["kridge_lap", "kridge_nodeg"]
