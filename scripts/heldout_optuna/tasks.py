"""Five held-out Optuna objectives on scikit-learn's bundled datasets (no downloads).

Written define-by-run, as an Optuna user writes them. Every objective is deterministic (fixed
folds, fixed random_state, single-threaded) and cached on disk keyed by the exact parameters
(the cache changes no value; it stores the cost of the first evaluation so that an uncached wall
time can be reconstructed).

Tasks (direction in brackets):
  digits_model_choice   [max]  SVC (C, gamma) | k-NN (n_neighbors, weights, p) |
                               logistic regression (C) | extra trees (n_estimators, max_depth,
                               max_features); 3-fold accuracy on 600 digits.          conditional
  cancer_pipeline       [min]  scaler choice, use_pca -> n_components, C (log), class_weight;
                               logistic regression, 5-fold log loss.                   conditional
  diabetes_boost_forest [min]  gradient boosting (learning_rate, n_estimators, max_depth,
                               subsample) vs random forest (n_estimators, max_depth,
                               min_samples_leaf, max_features); 3-fold RMSE.           conditional
  digits_mlp_layers     [min]  MLP with n_layers 1-3 -> width_i (log int) per layer,
                               activation, alpha (log), lr (log); 3-fold log loss on 360 digits.
                                                                                       conditional
  diabetes_poly_enet    [min]  plain: degree (int 1-3), interaction_only (cat), alpha (log),
                               l1_ratio (float), standardize target (cat); 5-fold MSE.  plain
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import hashlib
import json
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

warnings.filterwarnings("ignore")  # ConvergenceWarning of MLP / logistic regression

_DATA = {}


def _digits(n):
    key = ("digits", n)
    if key not in _DATA:
        X, y = load_digits(return_X_y=True)
        idx = np.random.RandomState(0).permutation(len(y))[:n]
        _DATA[key] = (X[idx] / 16.0, y[idx])
    return _DATA[key]


def _cancer():
    if "cancer" not in _DATA:
        _DATA["cancer"] = load_breast_cancer(return_X_y=True)
    return _DATA["cancer"]


def _diabetes():
    if "diabetes" not in _DATA:
        _DATA["diabetes"] = load_diabetes(return_X_y=True)
    return _DATA["diabetes"]


# ---------------------------------------------------------------- the evaluations (params -> value)
def eval_digits_model_choice(p):
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC
    X, y = _digits(600)
    m = p["model"]
    if m == "svc":
        clf = SVC(C=p["svc_C"], gamma=p["svc_gamma"])
    elif m == "knn":
        clf = KNeighborsClassifier(n_neighbors=p["knn_k"], weights=p["knn_weights"], p=p["knn_p"])
    elif m == "logreg":
        clf = LogisticRegression(C=p["lr_C"], max_iter=200)
    else:
        clf = ExtraTreesClassifier(n_estimators=p["et_n_estimators"], max_depth=p["et_max_depth"],
                                   max_features=p["et_max_features"], random_state=0, n_jobs=1)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    return float(cross_val_score(clf, X, y, cv=cv, scoring="accuracy").mean())


def eval_cancer_pipeline(p):
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, QuantileTransformer, StandardScaler
    X, y = _cancer()
    steps = [{"standard": StandardScaler(), "minmax": MinMaxScaler(),
              "quantile": QuantileTransformer(n_quantiles=100, random_state=0)}[p["scaler"]]]
    if p["use_pca"]:
        steps.append(PCA(n_components=p["n_components"], random_state=0))
    steps.append(LogisticRegression(C=p["C"], class_weight=p["class_weight"], max_iter=300))
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    return float(-cross_val_score(make_pipeline(*steps), X, y, cv=cv, scoring="neg_log_loss").mean())


def eval_diabetes_boost_forest(p):
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    X, y = _diabetes()
    if p["model"] == "gbr":
        reg = GradientBoostingRegressor(learning_rate=p["gb_learning_rate"], n_estimators=p["gb_n_estimators"],
                                        max_depth=p["gb_max_depth"], subsample=p["gb_subsample"], random_state=0)
    else:
        reg = RandomForestRegressor(n_estimators=p["rf_n_estimators"], max_depth=p["rf_max_depth"],
                                    min_samples_leaf=p["rf_min_samples_leaf"], max_features=p["rf_max_features"],
                                    random_state=0, n_jobs=1)
    cv = KFold(3, shuffle=True, random_state=0)
    return float(-cross_val_score(reg, X, y, cv=cv, scoring="neg_root_mean_squared_error").mean())


def eval_digits_mlp_layers(p):
    from sklearn.neural_network import MLPClassifier
    X, y = _digits(360)
    layers = tuple(p[f"width_{i}"] for i in range(p["n_layers"]))
    clf = MLPClassifier(hidden_layer_sizes=layers, activation=p["activation"], alpha=p["alpha"],
                        learning_rate_init=p["lr"], max_iter=40, random_state=0)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    return float(-cross_val_score(clf, X, y, cv=cv, scoring="neg_log_loss").mean())


def eval_diabetes_poly_enet(p):
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.linear_model import ElasticNet
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler
    X, y = _diabetes()
    model = make_pipeline(PolynomialFeatures(p["degree"], interaction_only=p["interaction_only"], include_bias=False),
                          StandardScaler(), ElasticNet(alpha=p["alpha"], l1_ratio=p["l1_ratio"], max_iter=300))
    if p["scale_target"]:
        model = TransformedTargetRegressor(model, transformer=StandardScaler())
    cv = KFold(5, shuffle=True, random_state=0)
    return float(-cross_val_score(model, X, y, cv=cv, scoring="neg_mean_squared_error").mean())


# ---------------------------------------------------------------- the define-by-run objectives
def space_digits_model_choice(trial):
    model = trial.suggest_categorical("model", ["svc", "knn", "logreg", "extra_trees"])
    if model == "svc":
        trial.suggest_float("svc_C", 1e-2, 1e3, log=True)
        trial.suggest_float("svc_gamma", 1e-4, 1e1, log=True)
    elif model == "knn":
        trial.suggest_int("knn_k", 1, 30)
        trial.suggest_categorical("knn_weights", ["uniform", "distance"])
        trial.suggest_int("knn_p", 1, 2)
    elif model == "logreg":
        trial.suggest_float("lr_C", 1e-3, 1e2, log=True)
    else:
        trial.suggest_int("et_n_estimators", 10, 60, step=10)
        trial.suggest_int("et_max_depth", 2, 20)
        trial.suggest_float("et_max_features", 0.05, 1.0)


def space_cancer_pipeline(trial):
    trial.suggest_categorical("scaler", ["standard", "minmax", "quantile"])
    if trial.suggest_categorical("use_pca", [False, True]):
        trial.suggest_int("n_components", 2, 20)
    trial.suggest_float("C", 1e-4, 1e3, log=True)
    trial.suggest_categorical("class_weight", [None, "balanced"])


def space_diabetes_boost_forest(trial):
    if trial.suggest_categorical("model", ["gbr", "rf"]) == "gbr":
        trial.suggest_float("gb_learning_rate", 1e-3, 0.5, log=True)
        trial.suggest_int("gb_n_estimators", 10, 100)
        trial.suggest_int("gb_max_depth", 1, 5)
        trial.suggest_float("gb_subsample", 0.5, 1.0)
    else:
        trial.suggest_int("rf_n_estimators", 10, 60)
        trial.suggest_int("rf_max_depth", 2, 12)
        trial.suggest_int("rf_min_samples_leaf", 1, 30, log=True)
        trial.suggest_float("rf_max_features", 0.1, 1.0)


def space_digits_mlp_layers(trial):
    n = trial.suggest_int("n_layers", 1, 3)
    for i in range(n):
        trial.suggest_int(f"width_{i}", 4, 64, log=True)
    trial.suggest_categorical("activation", ["relu", "tanh", "logistic"])
    trial.suggest_float("alpha", 1e-6, 1e-1, log=True)
    trial.suggest_float("lr", 1e-4, 1e-1, log=True)


def space_diabetes_poly_enet(trial):
    trial.suggest_int("degree", 1, 3)
    trial.suggest_categorical("interaction_only", [False, True])
    trial.suggest_float("alpha", 1e-4, 1e2, log=True)
    trial.suggest_float("l1_ratio", 0.0, 1.0)
    trial.suggest_categorical("scale_target", [False, True])


TASKS = {
    "digits_model_choice": ("maximize", space_digits_model_choice, eval_digits_model_choice, True),
    "cancer_pipeline": ("minimize", space_cancer_pipeline, eval_cancer_pipeline, True),
    "diabetes_boost_forest": ("minimize", space_diabetes_boost_forest, eval_diabetes_boost_forest, True),
    "digits_mlp_layers": ("minimize", space_digits_mlp_layers, eval_digits_mlp_layers, True),
    "diabetes_poly_enet": ("minimize", space_diabetes_poly_enet, eval_diabetes_poly_enet, False),
}


class Cache:
    """params -> (value, seconds of the first evaluation), appended to a JSON-lines file."""

    def __init__(self, path):
        self.path, self.d = path, {}
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a torn last line
                    self.d[r["k"]] = (r["v"], r["t"])

    def get(self, key, compute):
        if key in self.d:
            return self.d[key]
        t0 = time.perf_counter()
        v = compute()
        dt = time.perf_counter() - t0
        self.d[key] = (v, dt)
        with open(self.path, "a") as f:
            f.write(json.dumps({"k": key, "v": v, "t": dt}) + "\n")
        return v, dt


def make_objective(name, cache, log):
    """An Optuna objective: suggest define-by-run, evaluate the exact params through the cache.

    log: a list; each call appends (objective seconds in this process, seconds of the uncached
    evaluation)."""
    _, space, evaluate, _ = TASKS[name]

    def objective(trial):
        t0 = time.perf_counter()
        space(trial)
        p = dict(trial.params)
        key = hashlib.sha1(json.dumps(sorted(p.items()), default=repr).encode()).hexdigest()
        v, cost = cache.get(key, lambda: evaluate(p))
        log.append((time.perf_counter() - t0, cost))
        return v

    return objective
