#!/usr/bin/python3
"""Cross-validated scores of scikit-learn models: the worker of optimist's `robust` tasks.

    sklearn_tasks.py --task NAME [--seed 0] [--datasets DIR]   (NAME: see TASKS; --list prints them)

Protocol (optimist's external objective): one JSON object a line on stdin, one answer a line on
stdout, until stdin closes.
    in:  {"params": {"C": 12.5, "kernel": "rbf", ...}}     (names and values of the task's space)
    out: {"y": 0.9634}     or     {"error": "what went wrong"}

A conditional parameter may be left out of "params" where it is unused (the `_declared` problems
declare their conditions, and optimist sends only the active parameters): gamma for a linear
kernel, degree for every kernel but poly, l1_ratio for every penalty but elasticnet, max_samples
without bootstrap. Its value there changes nothing, so the score is the one of any value.

Each task fixes its data set, model, folds and every random_state, so equal parameters give
bit-identical scores (the objectives are deterministic). The search spaces are declared in
src/problems/robust_problems.cpp; docs/robust.md says what each task stresses. Data sets: those
bundled with scikit-learn, and the UCI files of the GO-UCB paper in ../shared/datasets (read in
place, never copied; OPTIMIST_DATASETS overrides the folder).
"""
import argparse
import json
import math
import os
import sys
import warnings


DATASETS = None  # --datasets


def shared_dataset(file):
    import numpy as np
    folders = [DATASETS] if DATASETS else [os.environ["OPTIMIST_DATASETS"]] if os.environ.get("OPTIMIST_DATASETS") else [
        os.path.join("..", "shared", "datasets"),
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "datasets")]
    for folder in folders:
        path = os.path.join(folder, file)
        if os.path.isfile(path):
            data = np.loadtxt(path, dtype=float, ndmin=2)
            return data[:, :-1], data[:, -1].astype(int)
    raise FileNotFoundError(f"dataset '{file}' not found in {', '.join(folders)} (set OPTIMIST_DATASETS)")


def bundled(name):
    import sklearn.datasets as d
    return getattr(d, "load_" + name)(return_X_y=True)


def scaled(model):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    return make_pipeline(StandardScaler(), model)


def conditional(p, name, used, default):
    """p[name]; a parameter not used by the model may be left out, and `default` (which changes
    nothing there) stands in. Left out where it is used: an error naming it."""
    if name in p:
        return p[name]
    if used:
        raise ValueError(f"the parameter '{name}' is missing (it is used here)")
    return default


# ---- models: params (a dict as the space names them) -> an unfitted estimator ----

def svm_rbf(p, seed):
    from sklearn.svm import SVC
    return scaled(SVC(C=p["C"], gamma=p["gamma"]))


def svm_kernel(p, seed):
    from sklearn.svm import SVC
    # gamma is unused by the linear kernel, degree by every kernel but poly: conditional parameters,
    # left out where unused when declared (scikit-learn's defaults stand in: they change nothing).
    kernel = p["kernel"]
    return scaled(SVC(kernel=kernel, C=p["C"], gamma=conditional(p, "gamma", kernel != "linear", "scale"),
                      degree=int(conditional(p, "degree", kernel == "poly", 3)), coef0=1.0, max_iter=200000))


def knn(p, seed):
    from sklearn.neighbors import KNeighborsClassifier
    return scaled(KNeighborsClassifier(n_neighbors=int(p["n_neighbors"]), weights=p["weights"], p=int(p["p"])))


def logistic(p, seed):
    from sklearn.linear_model import LogisticRegression
    return scaled(LogisticRegression(penalty=p["penalty"], C=p["C"], solver="liblinear", random_state=seed))


def decision_tree(p, seed):
    from sklearn.tree import DecisionTreeClassifier
    return DecisionTreeClassifier(max_depth=int(p["max_depth"]), min_samples_split=int(p["min_samples_split"]),
                                  min_samples_leaf=int(p["min_samples_leaf"]), criterion=p["criterion"],
                                  max_features=p["max_features"], random_state=seed)


def elastic_net(p, seed):
    from sklearn.linear_model import ElasticNet
    return ElasticNet(alpha=p["alpha"], l1_ratio=p["l1_ratio"], max_iter=5000, random_state=seed)


def sgd(p, seed):
    from sklearn.linear_model import SGDClassifier
    # l1_ratio matters only for the elasticnet penalty (scikit-learn sets it to 0 for l2, 1 for l1);
    # left out there when declared, scikit-learn's default stands in.
    l1_ratio = conditional(p, "l1_ratio", p["penalty"] == "elasticnet", 0.15)
    return scaled(SGDClassifier(loss=p["loss"], penalty=p["penalty"], alpha=p["alpha"], l1_ratio=l1_ratio,
                                max_iter=200, tol=1e-4, random_state=seed))


def random_forest(p, seed):
    from sklearn.ensemble import RandomForestClassifier
    bootstrap = p["bootstrap"] == "true"
    return RandomForestClassifier(
        n_estimators=int(p["n_estimators"]), criterion=p["criterion"], max_depth=int(p["max_depth"]),
        min_samples_split=int(p["min_samples_split"]), min_samples_leaf=int(p["min_samples_leaf"]),
        max_features=p["max_features"], bootstrap=bootstrap,
        # max_samples only with bootstrap: conditional, left out without it when declared
        max_samples=conditional(p, "max_samples", True, None) if bootstrap else None,
        class_weight=None if p["class_weight"] == "none" else p["class_weight"], ccp_alpha=p["ccp_alpha"],
        random_state=seed, n_jobs=1)


def mlp(p, seed):
    from sklearn.neural_network import MLPClassifier
    units = int(round(p["units"]))
    return scaled(MLPClassifier(hidden_layer_sizes=(units,) * int(p["layers"]), activation=p["activation"],
                                alpha=p["alpha"], learning_rate_init=p["learning_rate_init"],
                                batch_size=int(round(p["batch_size"])), max_iter=40, random_state=seed))


# name: (data loader, model, folds, scoring, stratified)
TASKS = {
    "svm_rbf_breast_cancer": (lambda: bundled("breast_cancer"), svm_rbf, 5, "accuracy", True),
    "svm_kernel_wine": (lambda: bundled("wine"), svm_kernel, 5, "accuracy", True),
    "knn_wine": (lambda: bundled("wine"), knn, 5, "accuracy", True),
    "logistic_breast_cancer": (lambda: bundled("breast_cancer"), logistic, 5, "accuracy", True),
    "tree_australian": (lambda: shared_dataset("australian.dat"), decision_tree, 5, "accuracy", True),
    "elasticnet_diabetes": (lambda: bundled("diabetes"), elastic_net, 5, "r2", False),
    "sgd_breast_cancer": (lambda: bundled("breast_cancer"), sgd, 5, "accuracy", True),
    "forest_australian": (lambda: shared_dataset("australian.dat"), random_forest, 3, "accuracy", True),
    "mlp_pima": (lambda: shared_dataset("diabetes.dat"), mlp, 3, "accuracy", True),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", help="the task to evaluate")
    parser.add_argument("--seed", type=int, default=0, help="random_state of the folds and the model")
    parser.add_argument("--datasets", help="folder of the UCI data files (default: OPTIMIST_DATASETS, ../shared/datasets)")
    parser.add_argument("--list", action="store_true", help="print the task names and exit")
    args = parser.parse_args()
    global DATASETS
    DATASETS = args.datasets
    if args.list:
        print("\n".join(TASKS))
        return
    if args.task not in TASKS:
        sys.exit(f"sklearn_tasks: unknown task '{args.task}'; valid tasks: {', '.join(TASKS)}")
    try:
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
    except ImportError as e:
        sys.exit(f"sklearn_tasks: scikit-learn is missing ({e}); on Debian: apt-get install python3-sklearn")
    # A model stopped by its iteration limit is a legitimate, scored outcome.
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    load, make_model, n_folds, scoring, stratified = TASKS[args.task]
    try:
        X, y = load()
    except (OSError, ValueError) as e:
        sys.exit(f"sklearn_tasks: cannot read the data of '{args.task}': {e}")
    splitter = (StratifiedKFold if stratified else KFold)(n_splits=n_folds, shuffle=True, random_state=args.seed)
    folds = list(splitter.split(X, y))

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            params = json.loads(line)["params"]
            if not isinstance(params, dict):
                raise ValueError("'params' must be an object")
            score = float(cross_val_score(make_model(params, args.seed), X, y, cv=folds, scoring=scoring,
                                          n_jobs=1, error_score="raise").mean())
            if not math.isfinite(score):
                raise ValueError(f"the cross-validated {scoring} is {score}")
            answer = {"y": score}
        except Exception as e:  # noqa: BLE001 -- every failure is reported to optimist, not fatal
            answer = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
