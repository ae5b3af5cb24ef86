"""Held-out user tuning tasks (not in optimist's robust suite).

Each task: name -> (space_builder, objective(params, rng_state) -> loss, optuna_suggest(trial) -> params, noisy)
Every objective returns a loss to minimize (1 - accuracy, or 1 - R^2).
"""
import os
import warnings
import numpy as np

warnings.filterwarnings("ignore")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from sklearn.exceptions import ConvergenceWarning  # noqa: E402
warnings.filterwarnings("ignore", category=ConvergenceWarning)

from sklearn import datasets  # noqa: E402
from sklearn.model_selection import StratifiedKFold, KFold, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

# The GO-UCB paper's data files, read where they are (as the C++ problems do: OPTIMIST_DATASETS overrides).
SHARED = os.environ.get("OPTIMIST_DATASETS", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "datasets"))


def shared(file):
    d = np.loadtxt(os.path.join(SHARED, file), dtype=float, ndmin=2)
    return d[:, :-1], d[:, -1].astype(int)


_DATA = {}


def data(name):
    if name in _DATA:
        return _DATA[name]
    rs = np.random.RandomState(0)
    if name == "digits_sub":
        X, y = datasets.load_digits(return_X_y=True)
        idx = rs.permutation(len(y))[:600]
        out = X[idx], y[idx]
    elif name == "pima":
        out = shared("diabetes.dat")
    elif name == "bcw_orig":
        out = shared("breast-cancer.dat")
    elif name == "digits_full":
        X, y = datasets.load_digits(return_X_y=True)
        idx = rs.permutation(len(y))[:900]
        out = X[idx], y[idx]
    elif name == "regr":
        out = datasets.make_regression(n_samples=150, n_features=200, n_informative=20, noise=40.0,
                                       random_state=0)
    elif name == "clf":
        out = datasets.make_classification(n_samples=600, n_features=20, n_informative=6, n_redundant=4,
                                           flip_y=0.05, class_sep=0.8, random_state=0)
    _DATA[name] = out
    return out


def cv_loss(model, Xy, folds=3, cv_seed=0, stratified=True, scoring="accuracy"):
    X, y = Xy
    cv = (StratifiedKFold if stratified else KFold)(folds, shuffle=True, random_state=cv_seed)
    return 1.0 - float(np.mean(cross_val_score(model, X, y, cv=cv, scoring=scoring, n_jobs=1)))


# ---------------- 1. HistGradientBoosting on digits ----------------
def hgb_space(o):
    return {"learning_rate": o.Float(1e-3, 1.0, log=True),
            "max_leaf_nodes": o.Int(4, 64, log=True),
            "l2_regularization": o.Float(1e-6, 10.0, log=True),
            "max_iter": o.Int(5, 40)}


def hgb_obj(p, cv_seed=0):
    from sklearn.ensemble import HistGradientBoostingClassifier
    m = HistGradientBoostingClassifier(learning_rate=p["learning_rate"], max_leaf_nodes=int(p["max_leaf_nodes"]),
                                       l2_regularization=p["l2_regularization"], max_iter=int(p["max_iter"]),
                                       early_stopping=False, max_bins=32, random_state=0)
    return cv_loss(m, data("digits_sub"), cv_seed=cv_seed)


def hgb_optuna(t):
    return {"learning_rate": t.suggest_float("learning_rate", 1e-3, 1.0, log=True),
            "max_leaf_nodes": t.suggest_int("max_leaf_nodes", 4, 64, log=True),
            "l2_regularization": t.suggest_float("l2_regularization", 1e-6, 10.0, log=True),
            "max_iter": t.suggest_int("max_iter", 5, 40)}


# ---------------- 2. Forest (RF / ExtraTrees) on Pima, NOISY CV ----------------
def forest_space(o):
    return {"model": o.Categorical(["rf", "et"]),
            "n_estimators": o.Int(5, 100, log=True),
            "max_depth": o.Int(1, 20),
            "max_features": o.Float(0.05, 1.0),
            "criterion": o.Categorical(["gini", "entropy"]),
            "min_samples_leaf": o.Int(1, 30, log=True)}


def forest_obj(p, cv_seed=0):
    from sklearn.ensemble import RandomForestClassifier, ExtraTreesClassifier
    cls = RandomForestClassifier if p["model"] == "rf" else ExtraTreesClassifier
    m = cls(n_estimators=int(p["n_estimators"]), max_depth=int(p["max_depth"]), max_features=p["max_features"],
            criterion=p["criterion"], min_samples_leaf=int(p["min_samples_leaf"]), random_state=cv_seed, n_jobs=1)
    return cv_loss(m, data("pima"), cv_seed=cv_seed)


def forest_optuna(t):
    return {"model": t.suggest_categorical("model", ["rf", "et"]),
            "n_estimators": t.suggest_int("n_estimators", 5, 100, log=True),
            "max_depth": t.suggest_int("max_depth", 1, 20),
            "max_features": t.suggest_float("max_features", 0.05, 1.0),
            "criterion": t.suggest_categorical("criterion", ["gini", "entropy"]),
            "min_samples_leaf": t.suggest_int("min_samples_leaf", 1, 30, log=True)}


# ---------------- 3. SGDClassifier on digits (conditional eta0) ----------------
def sgd_space(o):
    return {"loss": o.Categorical(["hinge", "log_loss", "modified_huber", "perceptron"]),
            "alpha": o.Float(1e-7, 1.0, log=True),
            "learning_rate": o.Categorical(["optimal", "constant", "invscaling", "adaptive"]),
            "eta0": o.Float(1e-5, 1.0, log=True)}


def sgd_obj(p, cv_seed=0):
    from sklearn.linear_model import SGDClassifier
    m = make_pipeline(StandardScaler(), SGDClassifier(loss=p["loss"], alpha=p["alpha"],
                                                      learning_rate=p["learning_rate"], eta0=p["eta0"],
                                                      max_iter=15, tol=None, random_state=0))
    return cv_loss(m, data("digits_full"), cv_seed=cv_seed)


def sgd_optuna(t):
    return {"loss": t.suggest_categorical("loss", ["hinge", "log_loss", "modified_huber", "perceptron"]),
            "alpha": t.suggest_float("alpha", 1e-7, 1.0, log=True),
            "learning_rate": t.suggest_categorical("learning_rate", ["optimal", "constant", "invscaling", "adaptive"]),
            "eta0": t.suggest_float("eta0", 1e-5, 1.0, log=True)}


# ---------------- 4. MLP on make_classification ----------------
def mlp_space(o):
    return {"activation": o.Categorical(["relu", "tanh", "logistic"]),
            "learning_rate_init": o.Float(1e-4, 1.0, log=True),
            "hidden": o.Int(2, 256, log=True),
            "alpha": o.Float(1e-6, 1.0, log=True),
            "batch_size": o.Int(16, 256, log=True)}


def mlp_obj(p, cv_seed=0):
    from sklearn.neural_network import MLPClassifier
    m = make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(int(p["hidden"]),), activation=p["activation"],
                                                      learning_rate_init=p["learning_rate_init"], alpha=p["alpha"],
                                                      batch_size=int(p["batch_size"]), max_iter=25, random_state=0))
    return cv_loss(m, data("clf"), cv_seed=cv_seed)


def mlp_optuna(t):
    return {"activation": t.suggest_categorical("activation", ["relu", "tanh", "logistic"]),
            "learning_rate_init": t.suggest_float("learning_rate_init", 1e-4, 1.0, log=True),
            "hidden": t.suggest_int("hidden", 2, 256, log=True),
            "alpha": t.suggest_float("alpha", 1e-6, 1.0, log=True),
            "batch_size": t.suggest_int("batch_size", 16, 256, log=True)}


# ---------------- 5. SVC with categorical kernel on original Wisconsin BC (degree only for poly) ----------------
def svc_space(o):
    return {"kernel": o.Categorical(["linear", "rbf", "poly", "sigmoid"]),
            "C": o.Float(1e-3, 1e3, log=True),
            "gamma": o.Float(1e-4, 10.0, log=True),
            "degree": o.Int(2, 5)}


def svc_obj(p, cv_seed=0):
    from sklearn.svm import SVC
    m = make_pipeline(StandardScaler(), SVC(kernel=p["kernel"], C=p["C"], gamma=p["gamma"], degree=int(p["degree"]),
                                            max_iter=20000))
    return cv_loss(m, data("bcw_orig"), cv_seed=cv_seed)


def svc_optuna(t):
    k = t.suggest_categorical("kernel", ["linear", "rbf", "poly", "sigmoid"])
    return {"kernel": k, "C": t.suggest_float("C", 1e-3, 1e3, log=True),
            "gamma": t.suggest_float("gamma", 1e-4, 10.0, log=True),
            "degree": t.suggest_int("degree", 2, 5)}


# ---------------- 6. ElasticNet regression (1 - R^2) on make_regression ----------------
def enet_space(o):
    return {"alpha": o.Float(1e-5, 100.0, log=True),
            "l1_ratio": o.Float(0.0, 1.0),
            "fit_intercept": o.Categorical([True, False])}


def enet_obj(p, cv_seed=0):
    from sklearn.linear_model import ElasticNet
    m = make_pipeline(StandardScaler(), ElasticNet(alpha=p["alpha"], l1_ratio=p["l1_ratio"],
                                                   fit_intercept=p["fit_intercept"], max_iter=2000, tol=1e-3))
    return cv_loss(m, data("regr"), cv_seed=cv_seed, stratified=False, scoring="r2", folds=5)


def enet_optuna(t):
    return {"alpha": t.suggest_float("alpha", 1e-5, 100.0, log=True),
            "l1_ratio": t.suggest_float("l1_ratio", 0.0, 1.0),
            "fit_intercept": t.suggest_categorical("fit_intercept", [True, False])}


# name -> (space, objective, optuna, noisy)
TASKS = {
    "hgb_digits": (hgb_space, hgb_obj, hgb_optuna, False),
    "forest_pima_noisy": (forest_space, forest_obj, forest_optuna, True),
    "sgd_digits": (sgd_space, sgd_obj, sgd_optuna, False),
    "mlp_synth": (mlp_space, mlp_obj, mlp_optuna, False),
    "svc_kernel_bcw": (svc_space, svc_obj, svc_optuna, False),
    "enet_regr": (enet_space, enet_obj, enet_optuna, False),
}
