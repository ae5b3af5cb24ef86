"""Six new small HPO tasks on scikit-learn's bundled data sets (no downloads).

Each task: name -> (space builder, objective).  The objective takes a dict of
parameters and returns the NEGATIVE mean 3-fold CV score (to minimize).
Every random_state is fixed inside the objective, so a task is a deterministic
function of its parameters: only the optimizer's seed varies between runs.
"""
import os
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import warnings
import numpy as np
from sklearn import datasets
from sklearn.model_selection import StratifiedKFold, KFold, cross_val_score
from sklearn.exceptions import ConvergenceWarning

warnings.filterwarnings("ignore", category=ConvergenceWarning)
warnings.filterwarnings("ignore", category=UserWarning)
warnings.filterwarnings("ignore", category=RuntimeWarning)

_DATA = {}


def data(name):
    if name in _DATA:
        return _DATA[name]
    if name == "digits_small":
        X, y = datasets.load_digits(return_X_y=True)
        rng = np.random.RandomState(0)
        idx = rng.permutation(len(y))[:600]
        X, y = X[idx] / 16.0, y[idx]
    elif name == "digits_svc":
        X, y = datasets.load_digits(return_X_y=True)
        rng = np.random.RandomState(1)
        idx = rng.permutation(len(y))[:900]
        X, y = X[idx], y[idx]          # raw 0..16 pixel values: gamma matters a lot
    elif name == "wine":
        X, y = datasets.load_wine(return_X_y=True)
    elif name == "breast_cancer":
        X, y = datasets.load_breast_cancer(return_X_y=True)
    elif name == "diabetes":
        X, y = datasets.load_diabetes(return_X_y=True)
    else:
        raise KeyError(name)
    _DATA[name] = (X, y)
    return X, y


def cv_cls(model, X, y):
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    return float(np.mean(cross_val_score(model, X, y, cv=cv, n_jobs=1)))


def cv_reg(model, X, y):
    cv = KFold(n_splits=3, shuffle=True, random_state=0)
    return float(np.mean(cross_val_score(model, X, y, cv=cv, n_jobs=1, scoring="r2")))


# ---------------------------------------------------------------- 1. SVC on digits
def svc_digits_space(o):
    return {"C": o.Float(1e-3, 1e3, log=True),
            "gamma": o.Float(1e-6, 1e0, log=True)}


def svc_digits(p):
    from sklearn.svm import SVC
    X, y = data("digits_svc")
    return -cv_cls(SVC(C=p["C"], gamma=p["gamma"], kernel="rbf"), X, y)


# ---------------------------------------------------------------- 2. gradient boosting on wine
def gbm_wine_space(o):
    return {"n_estimators": o.Int(5, 80, log=True),
            "learning_rate": o.Float(1e-3, 1.0, log=True),
            "max_depth": o.Int(1, 5),
            "subsample": o.Float(0.2, 1.0)}


def gbm_wine(p):
    from sklearn.ensemble import GradientBoostingClassifier
    X, y = data("wine")
    m = GradientBoostingClassifier(n_estimators=p["n_estimators"], learning_rate=p["learning_rate"],
                                   max_depth=p["max_depth"], subsample=p["subsample"], random_state=0)
    return -cv_cls(m, X, y)


# ---------------------------------------------------------------- 3. kernel ridge on diabetes (conditional)
def kridge_diabetes_space(o):
    return {"kernel": o.Categorical(["rbf", "laplacian", "poly", "linear"]),
            "alpha": o.Float(1e-4, 1e2, log=True),
            "gamma": o.Float(1e-3, 1e2, log=True),   # unused by linear
            "degree": o.Int(2, 5)}                    # used by poly only


def kridge_diabetes(p):
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.preprocessing import StandardScaler
    from sklearn.pipeline import make_pipeline
    X, y = data("diabetes")
    kw = dict(kernel=p["kernel"], alpha=p["alpha"])
    if p["kernel"] != "linear":
        kw["gamma"] = p["gamma"]
    if p["kernel"] == "poly":
        kw["degree"] = p["degree"]
        kw["coef0"] = 1.0
    m = TransformedTargetRegressor(make_pipeline(StandardScaler(), KernelRidge(**kw)),
                                   transformer=StandardScaler())
    return -cv_reg(m, X, y)


# ---------------------------------------------------------------- 4. MLP on a digits subsample
def mlp_digits_space(o):
    return {"hidden": o.Int(2, 128, log=True),
            "alpha": o.Float(1e-6, 1e1, log=True),
            "lr_init": o.Float(1e-4, 1.0, log=True),
            "activation": o.Categorical(["relu", "tanh", "logistic"])}


def mlp_digits(p):
    from sklearn.neural_network import MLPClassifier
    X, y = data("digits_small")
    m = MLPClassifier(hidden_layer_sizes=(p["hidden"],), alpha=p["alpha"],
                      learning_rate_init=p["lr_init"], activation=p["activation"],
                      max_iter=40, random_state=0)
    return -cv_cls(m, X, y)


# ---------------------------------------------------------------- 5. extra trees on breast cancer
def et_breast_cancer_space(o):
    return {"max_features": o.Categorical(["sqrt", "log2", 0.5, 1.0]),
            "min_samples_leaf": o.Int(1, 40, log=True),
            "max_depth": o.Int(1, 16),
            "criterion": o.Categorical(["gini", "entropy"]),
            "bootstrap": o.Categorical([False, True])}


def et_breast_cancer(p):
    from sklearn.ensemble import ExtraTreesClassifier
    X, y = data("breast_cancer")
    m = ExtraTreesClassifier(n_estimators=25, max_features=p["max_features"],
                             min_samples_leaf=p["min_samples_leaf"], max_depth=p["max_depth"],
                             criterion=p["criterion"], bootstrap=p["bootstrap"],
                             random_state=0, n_jobs=1)
    return -cv_cls(m, X, y)


# ---------------------------------------------------------------- 6. model choice on wine (conditional)
def pick_wine_space(o):
    return {"model": o.Categorical(["logreg", "knn", "svc"]),
            "scale": o.Categorical([False, True]),
            "C": o.Float(1e-4, 1e3, log=True),          # logreg and svc
            "gamma": o.Float(1e-5, 1e1, log=True),      # svc only
            "n_neighbors": o.Int(1, 40)}                # knn only


def pick_wine(p):
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC
    from sklearn.preprocessing import StandardScaler
    from sklearn.pipeline import make_pipeline
    X, y = data("wine")
    if p["model"] == "logreg":
        m = LogisticRegression(C=p["C"], max_iter=200)
    elif p["model"] == "knn":
        m = KNeighborsClassifier(n_neighbors=p["n_neighbors"])
    else:
        m = SVC(C=p["C"], gamma=p["gamma"])
    if p["scale"]:
        m = make_pipeline(StandardScaler(), m)
    return -cv_cls(m, X, y)


def pick_wine_conditional_space(o):
    """pick_wine's space with its conditions declared (stop 69: `when=`): C for logreg and svc,
    gamma for svc, n_neighbors for knn. The objective is pick_wine's: it reads only active keys."""
    return {"model": o.Categorical(["logreg", "knn", "svc"]),
            "scale": o.Categorical([False, True]),
            "C": o.Float(1e-4, 1e3, log=True, when={"model": ["logreg", "svc"]}),
            "gamma": o.Float(1e-5, 1e1, log=True, when={"model": "svc"}),
            "n_neighbors": o.Int(1, 40, when={"model": "knn"})}


TASKS = {
    "svc_digits": (svc_digits_space, svc_digits),
    "gbm_wine": (gbm_wine_space, gbm_wine),
    "kridge_diabetes": (kridge_diabetes_space, kridge_diabetes),
    "mlp_digits": (mlp_digits_space, mlp_digits),
    "et_breast_cancer": (et_breast_cancer_space, et_breast_cancer),
    "pick_wine": (pick_wine_space, pick_wine),
    "pick_wine_conditional": (pick_wine_conditional_space, pick_wine),
}
