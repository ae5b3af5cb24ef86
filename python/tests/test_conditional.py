"""Conditional parameters (``when=``): the objective sees only the active ones, a point is its
active values (never evaluated twice for an unused parameter), and every path keeps them."""
import numpy as np
import pytest

import optimist
from optimist import Categorical, Float, Int, Space


def svm_space():
    return Space({"kernel": Categorical(["linear", "rbf", "poly"]),
                  "C": Float(1e-2, 1e2, log=True),
                  "gamma": Float(1e-4, 1e1, log=True, when={"kernel": ["rbf", "poly"]}),
                  "degree": Int(2, 5, when={"kernel": "poly"})})


def test_dicts_leave_out_inactive_parameters_and_vectors_hold_fixed_values():
    s = svm_space()
    v = s.to_vector({"kernel": "linear", "C": 1.0})
    np.testing.assert_array_equal(v, [0, 1.0, 1e-4, 2])  # gamma and degree at their lower bounds
    assert s.to_dict(v) == {"kernel": "linear", "C": 1.0}
    # A value given for an unused parameter is accepted and replaced by the fixed value.
    np.testing.assert_array_equal(s.to_vector({"kernel": "rbf", "C": 1.0, "gamma": 0.1, "degree": 4}), [1, 1.0, 0.1, 2])
    assert s.to_dict(s.to_vector({"kernel": "poly", "C": 1.0, "gamma": 0.1, "degree": 4})) == \
        {"kernel": "poly", "C": 1.0, "gamma": 0.1, "degree": 4}
    assert s.active([2, 1.0, 0.1, 4]) == [True, True, True, True]
    with pytest.raises(ValueError, match=r"missing \['gamma'\] \(active"):
        s.to_vector({"kernel": "rbf", "C": 1.0})
    with pytest.raises(ValueError, match=r"missing \['C'\]"):
        s.to_vector({"kernel": "rbf", "gamma": 0.1})


def test_bad_conditions_raise_value_error_naming_the_parameter():
    with pytest.raises(ValueError, match="when must be a dict naming one parent"):
        Float(0, 1, when="kernel")
    with pytest.raises(ValueError, match=r"parameter 'gamma': condition on unknown parameter 'kernal' \(did you mean 'kernel'\?\)"):
        Space({"kernel": Categorical(["a", "b"]), "gamma": Float(0, 1, when={"kernal": "a"})})
    with pytest.raises(ValueError, match=r"parameter 'gamma': when=\{'kernel': \['c'\]\}: 'c' is not one of 'kernel''s choices \['a', 'b'\]"):
        Space({"kernel": Categorical(["a", "b"]), "gamma": Float(0, 1, when={"kernel": "c"})})
    with pytest.raises(ValueError, match="must come before it"):
        Space({"gamma": Float(0, 1, when={"kernel": "a"}), "kernel": Categorical(["a", "b"])})
    with pytest.raises(ValueError, match="continuous parameter 'x'"):
        Space({"x": Float(0, 1), "y": Float(0, 1, when={"x": 0.5})})
    with pytest.raises(ValueError, match="1.5 is not a value of integer parameter 'n'"):
        Space({"n": Int(1, 3), "y": Float(0, 1, when={"n": 1.5})})


def test_json_round_trip_and_pickle_keep_conditions():
    import pickle
    s = svm_space()
    j = s.to_json()
    assert j["parameters"][2]["condition"] == {"parent": "kernel", "values": ["rbf", "poly"]}
    back = Space.from_json(j)
    assert back.to_json() == j
    assert back["degree"].when.parent == "kernel" and back["degree"].when.values == ("poly",)
    assert pickle.loads(pickle.dumps(s)).to_json() == j
    # An integer parent, and choices that are not strings.
    s2 = Space({"layers": Int(1, 3), "width2": Int(8, 64, when={"layers": [2, 3]}),
                "act": Categorical([None, 0.5]), "slope": Float(0, 1, when={"act": 0.5})})
    assert s2.to_dict(s2.to_vector({"layers": 1, "act": None})) == {"layers": 1, "act": None}
    assert s2.to_json()["parameters"][1]["condition"] == {"parent": "layers", "values": [2, 3]}


def test_minimize_calls_the_objective_with_active_parameters_only_and_never_twice_for_the_same_point():
    seen, values = [], []

    def f(p):
        seen.append(dict(p))
        values.append(value(p))
        return values[-1]

    def value(p):
        if p["kernel"] == "linear":
            assert set(p) == {"kernel", "C"}
            return 0.5 + 0.01 * abs(np.log10(p["C"]))
        if p["kernel"] == "rbf":
            assert set(p) == {"kernel", "C", "gamma"}
            return (np.log10(p["gamma"]) + 2) ** 2 / 10
        assert set(p) == {"kernel", "C", "gamma", "degree"}
        return 1.0 + p["degree"]

    for algorithm in ("auto", "random", "gp-ei", "go-ucb", "turbo", "sequool"):
        seen.clear()
        values.clear()
        r = optimist.minimize(f, svm_space(), algorithm=algorithm, budget=25, seed=3)
        assert len(seen) == 25, algorithm
        keys = {tuple(sorted((k, float(v) if not isinstance(v, str) else v) for k, v in p.items())) for p in seen}
        assert len(keys) == 25, f"{algorithm}: a point evaluated twice"
        assert set(r.x) <= {"kernel", "C", "gamma", "degree"}
        assert r.fun == min(values)


def test_a_finite_conditional_space_is_evaluated_point_by_point_then_the_run_stops():
    space = Space({"kernel": Categorical(["linear", "rbf", "poly"]),
                   "gamma": Int(1, 4, when={"kernel": ["rbf", "poly"]}),
                   "degree": Int(2, 4, when={"kernel": "poly"})})
    calls = []
    r = optimist.minimize(lambda p: calls.append(p) or len(p), space, algorithm="gp-ei", budget=50, seed=0)
    assert len(calls) == 1 + 4 + 12 and r.nfev == 17  # not 3 * 4 * 3 = 36
    assert r.status == "space exhausted" and "17 points" in r.message


def test_ask_tell_and_studies_keep_the_condition(tmp_path):
    opt = optimist.Optimizer(svm_space(), "random", seed=1)
    opt.tell({"kernel": "linear", "C": 2.0}, 1.0)
    opt.tell({"kernel": "linear", "C": 2.0, "gamma": 0.5, "degree": 3}, 1.0)  # the same point
    t = opt.ask()
    assert set(t.params) <= {"kernel", "C", "gamma", "degree"}
    storage = f"sqlite:///{tmp_path / 's.db'}"
    study = optimist.Study.create(storage, "svm", svm_space(), algorithm="gp-ei", seed=2, budget=12)
    study.optimize(lambda p: 1.0 if p["kernel"] == "linear" else p["C"], n_trials=12)
    loaded = optimist.Study.load(storage, "svm")
    assert loaded.space.to_json() == svm_space().to_json()
    for trial in loaded.trials():
        if trial.params["kernel"] == "linear":
            assert set(trial.params) == {"kernel", "C"}


def test_unused_values_of_any_kind_are_replaced_and_data_frames_round_trip(tmp_path):
    s = svm_space()
    for junk in (float("nan"), None, 1e9, "text"):  # an empty data-frame cell, out of range, anything
        np.testing.assert_array_equal(s.to_vector({"kernel": "linear", "C": 1.0, "gamma": junk, "degree": junk}),
                                      [0, 1.0, 1e-4, 2])
    with pytest.raises(ValueError, match="parameter 'gamma': value is not finite"):
        s.to_vector({"kernel": "rbf", "C": 1.0, "gamma": float("nan")})
    with pytest.raises(ValueError, match="parameter 'degree': expected a number, got None"):
        s.to_vector({"kernel": "poly", "C": 1.0, "gamma": 0.1, "degree": None})
    r = optimist.minimize(lambda p: p["C"], svm_space(), algorithm="random", budget=8, seed=1)
    frame = r.history.to_pandas()  # one column per parameter, NaN where unused
    assert list(frame.columns[:4]) == ["kernel", "C", "gamma", "degree"]
    unused = frame["kernel"] == "linear"
    assert unused.any() and frame.loc[unused, "gamma"].isna().all()
    storage = f"sqlite:///{tmp_path / 'f.db'}"
    source = optimist.Study.create(storage, "source", svm_space(), algorithm="random", seed=3)
    source.optimize(lambda p: p["C"], n_trials=8)
    df = source.trials_dataframe()
    target = optimist.Study.create(storage, "target", svm_space(), algorithm="random", seed=3)
    target.add(df[["kernel", "C", "gamma", "degree"]], df["value"])
    assert [t.params for t in target.trials()] == [t.params for t in source.trials()]


def test_when_errors_name_the_child_and_tuple_choices_are_one_value():
    with pytest.raises(ValueError, match=r"parameter 'gamma': when=\{'kernel': \['rfb'\]\}: 'rfb' is not one of 'kernel''s choices"):
        Space({"kernel": Categorical(["rbf", "poly"]), "gamma": Float(0, 1, when={"kernel": "rfb"})})
    with pytest.raises(ValueError, match=r"outside 'n''s range \[1, 5\]"):
        Space({"n": Int(1, 5), "w": Float(0, 1, when={"n": 10**30})})
    s = Space({"shape": Categorical([(1, 2), (3, 4)]), "w": Float(0, 1, when={"shape": (1, 2)})})
    assert s.to_dict(s.to_vector({"shape": (3, 4)})) == {"shape": (3, 4)}
    assert "w" in s.to_dict(s.to_vector({"shape": (1, 2), "w": 0.5}))
    assert "when" in repr(Space([Int(0, 2), Float(0.5, 1, when={"x1": 1})]))
    # A space file's integer parent written as text, as the CLI takes it.
    j = {"parameters": [{"name": "n", "type": "integer", "lower": 1, "upper": 3},
                        {"name": "w", "type": "continuous", "lower": 0, "upper": 1, "condition": {"parent": "n", "values": ["2"]}}]}
    assert Space.from_json(j).to_json()["parameters"][1]["condition"] == {"parent": "n", "values": [2]}
