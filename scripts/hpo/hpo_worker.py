#!/usr/bin/python3
"""Cross-validated accuracy of a scikit-learn classifier: the optimist HPO problems' worker.

The GO-UCB paper's hyperparameter-tuning tasks (ICML 2023, section 6.2 and appendix D.2):
random forest, multi-layer perceptron or gradient boosting on one dataset, scored by the mean
accuracy of 5-fold cross-validation.

    hpo_worker.py --dataset FILE --classifier rf|mlp|gb [--folds 5] [--seed 0]

Protocol (optimist's external objective): one JSON object a line on stdin, one answer a line on
stdout, until stdin closes.
    in:  {"params": {"n_estimators": 57, "criterion": "gini", ...}}
    out: {"y": 0.9634}     or     {"error": "what went wrong"}
The hyperparameters arrive decoded (sklearn names and values); the map from the paper's [0,10]^d
box lives in src/problems/hpo_problems.cpp. The dataset is read once; the fold split and every
random_state are fixed, so equal parameters give bit-identical accuracies.

Dataset files: one sample a line, numeric features separated by spaces, the class label last.
"""
import argparse
import json
import math
import os
import sys
import warnings


def load_dataset(path):
    import numpy as np
    data = np.loadtxt(path, dtype=float, ndmin=2)
    if data.shape[0] < 2 or data.shape[1] < 2:
        raise ValueError(f"{path}: need at least 2 rows and 2 columns, got shape {data.shape}")
    return data[:, :-1], data[:, -1].astype(int)


def make_classifier(kind, params, seed):
    # n_jobs=1: evaluations run side by side in benchmark sweeps; the caller owns the cores.
    if kind == "rf":
        from sklearn.ensemble import RandomForestClassifier
        return RandomForestClassifier(random_state=seed, n_jobs=1, **params)
    if kind == "mlp":
        from sklearn.neural_network import MLPClassifier
        return MLPClassifier(random_state=seed, **params)
    if kind == "gb":
        from sklearn.ensemble import GradientBoostingClassifier
        return GradientBoostingClassifier(random_state=seed, **params)
    raise ValueError(f"unknown classifier '{kind}' (expected rf, mlp or gb)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", required=True, help="data file (features, label last)")
    parser.add_argument("--classifier", required=True, choices=["rf", "mlp", "gb"])
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (paper: 5)")
    parser.add_argument("--seed", type=int, default=0, help="random_state of the split and the classifier")
    args = parser.parse_args()

    try:
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.model_selection import StratifiedKFold, cross_val_score
    except ImportError as e:
        sys.exit(f"hpo_worker: scikit-learn is missing ({e}); on Debian: apt-get install python3-sklearn")
    # An MLP stopped by max_iter is a legitimate, scored outcome, not something to report.
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    try:
        X, y = load_dataset(args.dataset)
    except (OSError, ValueError) as e:
        sys.exit(f"hpo_worker: cannot read dataset: {e}")
    folds = list(StratifiedKFold(n_splits=args.folds, shuffle=True, random_state=args.seed).split(X, y))

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            params = request["params"]
            if not isinstance(params, dict):
                raise ValueError("'params' must be an object")
            clf = make_classifier(args.classifier, params, args.seed)
            accuracy = float(cross_val_score(clf, X, y, cv=folds, scoring="accuracy", n_jobs=1,
                                             error_score="raise").mean())
            if not math.isfinite(accuracy):
                raise ValueError(f"accuracy is {accuracy}")
            answer = {"y": accuracy}
        except Exception as e:  # one bad point must not end the worker
            answer = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
