"""OptimistSampler: every optimist algorithm as an Optuna 3.1 sampler.

>>> import optuna
>>> from optimist.integration import OptimistSampler
>>> study = optuna.create_study(sampler=OptimistSampler("gp-ei", seed=0))
>>> study.optimize(lambda t: (t.suggest_float("x", -3, 3) - 1) ** 2, n_trials=20)

The study keeps its own storage (in memory, SQLite, PostgreSQL...), pruners and visualization; the
sampler keeps one optimist Optimizer for the study's relative search space (each parameter that
every completed trial has since the first that had it, with its latest distribution, and each
conditional parameter whose use one categorical or small integer parameter explains, with that
condition: define-by-run branches become optimist's conditional parameters) and feeds it every
finished trial inside that space, its own asks and those of other workers sharing the storage.
Parameters outside that space (a conditional one no parameter explains, or a new one before a
trial with it completes) are sampled by an independent sampler (RandomSampler by default), as
Optuna's own relative samplers do.
"""
from __future__ import annotations

import math
import secrets
import sys
import threading
import time
import warnings
import weakref
from dataclasses import replace
from typing import Any, Callable, Dict, Optional, Sequence, Set, Tuple

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.trial import FrozenTrial, TrialState

from .. import _optimist
from ._optuna_space import (_contains, _fixed_params, _LatestSpace, _reachable_choices, _RelativeSpace, _same_choice,
                            _without_orphans)
from ..optimizer import Optimizer, Trial
from ..space import Categorical, Float, Int, Space

__all__ = ["OptimistSampler"]

SpaceExhausted = _optimist.SpaceExhausted

_FINISHED = (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)
# A trial's system attribute holding the point the sampler asked for it, in Optuna's internal
# representation: other workers see it as pending before the objective suggests the parameters.
_ASKED_KEY = "optimist:asked"
# Asks of one trial when another process's running trial holds the point asked (_sample_relative).
_ASK_ATTEMPTS = 3
_ASKED_AT_KEY = "optimist:asked_at"  # when (time.time()) the asked point was stored


class _Param:
    """One Optuna distribution as an optimist parameter, with the maps between the two values."""

    def __init__(self, dist: BaseDistribution):
        self.dist = dist
        if isinstance(dist, CategoricalDistribution):
            self.dim: Any = Categorical(_reachable_choices(dist))
            self.to_optuna: Callable[[Any], Any] = lambda v: v
            self.to_optimist: Callable[[Any], Any] = lambda v: v
        elif isinstance(dist, IntDistribution) and dist.log:  # Optuna's log ints have step 1
            self.dim = Int(dist.low, dist.high, log=True)
            self.to_optuna = int
            self.to_optimist = int
        elif isinstance(dist, IntDistribution):
            low, step = dist.low, dist.step
            self.dim = Int(0, (dist.high - low) // step)  # the index of the value on its grid
            self.to_optuna = lambda i: int(low + int(i) * step)
            self.to_optimist = lambda v: (int(v) - low) // step
        elif isinstance(dist, FloatDistribution) and dist.step is not None:
            low, high, step = dist.low, dist.high, dist.step
            self.dim = Int(0, int(round((high - low) / step)))
            self.to_optuna = lambda i: float(min(low + int(i) * step, high))
            self.to_optimist = lambda v: int(round((float(v) - low) / step))
        elif isinstance(dist, FloatDistribution):
            self.dim = Float(dist.low, dist.high, log=dist.log)
            self.to_optuna = float
            self.to_optimist = float
        else:
            raise ValueError(f"OptimistSampler: unsupported distribution {dist!r}")

    def contains(self, value: Any) -> bool:
        return _contains(self.dist, value)

    def conditional(self, parent_name: str, parent: "_Param", values: tuple) -> Any:
        """This parameter's optimist dimension, used only where `parent` holds one of `values`
        (Optuna values)."""
        when = {parent_name: [parent.to_optimist(v) for v in values]}
        d = self.dim
        if isinstance(d, Categorical):
            return Categorical(d.choices, when=when)
        return replace(d, when=when)


def _outer(study: optuna.Study) -> optuna.Study:
    """The study itself, where HyperbandPruner shows the sampler a view of one bracket's trials that
    has no tell() and no optimize loop."""
    return getattr(study, "_study", study)


def _fail_created_trial(study: optuna.Study, trial: FrozenTrial) -> None:
    """Optuna has created the trial before asking the sampler: an error raised from the sampler
    would leave it RUNNING in the storage for ever, so it is failed first."""
    try:
        _outer(study).tell(trial.number, state=TrialState.FAIL)
    except Exception:  # noqa: BLE001 - the caller's error is what matters
        pass


def _stop(study: optuna.Study, independent: BaseSampler, when: str = "") -> str:
    """Stops study.optimize() (as GridSampler does) and says so. In the ask-and-tell interface
    Optuna refuses study.stop() with a RuntimeError, which study.tell or study.ask then raised
    (their trial told or failed all the same): there the next trials are sampled independently."""
    if getattr(getattr(_outer(study), "_thread_local", None), "in_optimize_loop", False):
        study.stop()
        return "the study stops" + when
    return f"further trials (study.ask) are sampled by {type(independent).__name__}"


def _unrepresentable(name: str, dist: BaseDistribution) -> Optional[str]:
    """Why optimist cannot search this distribution (it is then sampled independently, as TPE and
    RandomSampler would), or None."""
    if not name:
        return "an empty name"
    grid = isinstance(dist, IntDistribution) and not dist.log or isinstance(dist, FloatDistribution) and dist.step
    if grid and (dist.high - dist.low) / dist.step >= 2 ** 53:
        return f"{dist!r} has more values than an optimist integer parameter holds (2^53)"
    try:
        Space({name: _Param(dist).dim})
    except (ValueError, TypeError, OverflowError) as e:
        return f"{dist!r}: {e}"
    return None


class _StudyKey:
    """Which study the sampler's state belongs to: its storage object itself and the study's id in
    it. Not ``id(storage)``: every in-memory study has id 0 in a storage of its own, and a freed
    storage's address is reused by the next one, so a sampler reused over a loop of studies took a
    new study for the old one. A weak reference (a strong one where the storage takes none) cannot
    be mistaken for a later object."""

    def __init__(self, study: optuna.Study):
        storage = study._storage
        try:
            self._storage = weakref.ref(storage)
        except TypeError:
            self._storage = lambda: storage
        self._study_id = study._study_id

    def of(self, study: optuna.Study) -> bool:
        return self._storage() is study._storage and self._study_id == study._study_id


def _same_study(key: Optional[_StudyKey], study: optuna.Study) -> bool:
    return key is not None and key.of(study)


class _Model:
    """The optimizer of one relative search space and which trials it has seen."""

    def __init__(self, study_key: _StudyKey, search_space: Dict[str, BaseDistribution],
                 conditions: Dict[str, Tuple[str, tuple]], direction: str, make: Callable[[Space, str], Optimizer]):
        self.study_key = study_key
        self.search_space = dict(search_space)
        self.conditions = conditions
        self.params = {name: _Param(d) for name, d in search_space.items()}
        dims: Dict[str, Any] = {}
        self.used_when: Dict[str, Tuple[str, list]] = {}  # name -> (parent, its optimist values)
        for name, p in self.params.items():
            if name in conditions:
                parent, values = conditions[name]
                dims[name] = p.conditional(parent, self.params[parent], values)
                self.used_when[name] = (parent, [self.params[parent].to_optimist(v) for v in values])
            else:
                dims[name] = p.dim
        self.optimizer = make(Space(dims), direction)
        self.asked: Dict[int, Trial] = {}  # Optuna trial number -> pending optimist trial
        self.told: Set[int] = set()
        self.given_back: Set[str] = set()  # asked points given back by a trial that started on them
        self.relative_exhausted = False  # the finite relative space is used up (conditional study)
        self.low = math.inf  # the smallest and largest finite values told
        self.high = -math.inf

    def told_value(self, value: float) -> float:
        """The value to tell the optimizer. Optuna completes a trial at -inf or +inf (the best or the
        worst possible value); optimist takes finite values only, so an infinity is told as the
        extreme finite value in its direction moved on by the values' range (1e300 before any)."""
        if math.isfinite(value):
            self.low, self.high = min(self.low, value), max(self.high, value)
            return value
        if self.low > self.high:
            return math.copysign(1e300, value)
        spread = self.high - self.low or max(1.0, abs(self.high))
        told = self.low - spread if value < 0 else self.high + spread
        # Values near the largest double (a penalty of sys.float_info.max) overflow it: the telling
        # raised "told value inf is not finite" out of study.optimize.
        return told if math.isfinite(told) else math.copysign(sys.float_info.max, value)

    def asked_params(self, trial: FrozenTrial) -> Dict[str, Any]:
        """The parameters of another worker's running trial: those it has suggested, completed by
        the point its sampler asked or the values it was enqueued with (none is in the storage
        before the objective suggests it)."""
        params: Dict[str, Any] = {}
        for name, internal in (trial.system_attrs.get(_ASKED_KEY) or {}).items():
            if name in self.params:
                try:
                    params[name] = self.params[name].dist.to_external_repr(internal)
                except (ValueError, TypeError, IndexError):
                    pass  # asked in another space (a changed categorical): not this point
        params.update(trial.system_attrs.get("fixed_params") or {})
        params.update(trial.params)
        return params

    def point(self, params: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """The optimist point of a trial's parameters, None when it does not cover this space (a
        parameter unused by the trial's values of its parent may be absent)."""
        point: Dict[str, Any] = {}
        for name, p in self.params.items():
            if name in params and p.contains(params[name]):
                point[name] = p.to_optimist(params[name])
            elif self._used(name, point):
                return None
        return point

    def _used(self, name: str, point: Dict[str, Any]) -> bool:
        if name not in self.used_when:
            return True
        parent, values = self.used_when[name]
        return parent in point and self._used(parent, point) and any(_same_choice(point[parent], v) for v in values)

    def optuna_params(self, trial: Trial) -> Dict[str, Any]:
        return {name: self.params[name].to_optuna(v) for name, v in trial.params.items()}


class OptimistSampler(BaseSampler):
    """An Optuna sampler running an optimist algorithm.

    Args:
        algorithm: any optimist algorithm (``optimist.algorithm_names()``), e.g. "gp-ei", "go-ucb",
            "turbo", "bkb".
        seed: the optimizer's seed (and the independent sampler's when it is created here); the same
            seed gives the same trials in a sequential study. None draws one (32 bits), which
            ``sampler.seed`` gives. Any seed below 2^64, as for ``optimist.Optimizer``.
        n_startup_trials: trials sampled by the independent sampler before the algorithm takes over
            (0: from the first trial whose search space is known; the algorithm has its own initial
            design, e.g. gp-ei's Sobol points).
        independent_sampler: samples what the relative search space does not hold (a conditional
            parameter whose condition the trials do not show yet, a new parameter, and the first
            trial); default RandomSampler(seed).
        warn_independent_sampling: warn once per parameter sampled independently after startup.
        budget: the number of trials planned, for algorithms that plan with it (go-ucb).
        model: your own parametric model for GO-UCB (see ``optimist.ParametricModel``).
        noisy: declare the objective noisy (the algorithm may ask a point again). By default it is
            deterministic: no point already evaluated or running is suggested again, and once every
            point of a finite space (integers and categoricals only) has been evaluated the sampler
            stops the study (``study.stop()``, as Optuna's GridSampler does) after that trial, which
            its independent sampler fills.
        infer_conditions: put conditional parameters in the model with the condition their trials
            show (a categorical or small integer parent, see the module's doc); False samples them
            independently, as before stop 70 and as Optuna's relative samplers do.
        **options: the algorithm's options, as for ``optimist.Optimizer``; a bad name, key or value
            raises ValueError here, naming it.
    """

    def __init__(self, algorithm: str = "auto", *, seed: Optional[int] = None, n_startup_trials: int = 0,
                 independent_sampler: Optional[BaseSampler] = None, warn_independent_sampling: bool = True,
                 budget: Optional[int] = None, model: Any = None, noisy: bool = False, infer_conditions: bool = True,
                 **options: Any):
        if isinstance(n_startup_trials, bool) or not isinstance(n_startup_trials, int) or n_startup_trials < 0:
            raise ValueError(f"n_startup_trials must be a non-negative integer, got {n_startup_trials!r}")
        if not isinstance(noisy, bool):
            raise ValueError(f"noisy must be True or False, got {noisy!r}")
        if not isinstance(infer_conditions, bool):
            raise ValueError(f"infer_conditions must be True or False, got {infer_conditions!r}")
        self._infer_conditions = infer_conditions
        if independent_sampler is not None and not isinstance(independent_sampler, BaseSampler):
            raise ValueError("independent_sampler must be an Optuna sampler (e.g. optuna.samplers.TPESampler()), "
                             f"got {independent_sampler!r}")
        if "constraints_func" in options:
            raise ValueError("OptimistSampler does not support constraints (constraints_func); optimist's algorithms "
                             "optimize one unconstrained objective (a constraint can be a penalty in the objective)")
        self._algorithm, self._budget, self._model_object, self._options = algorithm, budget, model, dict(options)
        self._noisy = noisy
        self._seed = seed if seed is not None else secrets.randbits(32)
        self._make_optimizer(Space([(0.0, 1.0)]), "minimize")  # bad algorithm or options: ValueError now
        # The seed drawn for seed=None seeds the independent sampler too, so that OptimistSampler(seed=
        # sampler.seed) repeats the study; RandomSampler takes 32 bits, optimist seeds 64.
        self._own_independent = independent_sampler is None
        self._independent = independent_sampler or RandomSampler(seed=int(self._seed) % 2**32)
        self._n_startup_trials = n_startup_trials
        self._warn_independent = warn_independent_sampling
        self._warned: Set[str] = set()
        self._unrepresentable: Set[str] = set()
        self._shadowed: Set[str] = set()
        self._space, self._space_key = _LatestSpace(), None
        self._model: Optional[_Model] = None
        self._lock = threading.Lock()

    def _make_optimizer(self, space: Space, direction: str) -> Optimizer:
        return Optimizer(space, self._algorithm, seed=self._seed, direction=direction, budget=self._budget,
                         model=self._model_object, noisy=self._noisy, **self._options)

    def __getstate__(self) -> Dict[str, Any]:
        """Pickling (``joblib.dump(study)``, ``copy.deepcopy``) keeps the settings, not the optimizer:
        an unpickled sampler rebuilds it from the study's trials at its next trial, telling them in
        trial order, so it asks what the original would have."""
        state = self.__dict__.copy()
        state["_model"] = None
        state["_space"], state["_space_key"] = _LatestSpace(), None  # an unpickled study's storage is another object
        del state["_lock"]
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        state.setdefault("_own_independent", False)  # pickled before it existed: reseeded as then
        state.setdefault("_infer_conditions", False)  # pickled before stop 70: its space as then
        state.setdefault("_shadowed", set())
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # ---- BaseSampler ----
    def reseed_rng(self) -> None:
        """A new random seed (Optuna calls it in each thread of n_jobs > 1): for the independent
        sampler (the new ``seed`` for its own RandomSampler), and for the optimizer when it is next built."""
        with self._lock:
            self._seed = secrets.randbits(32)
            if self._own_independent:
                self._independent = RandomSampler(seed=self._seed)
                return
        self._independent.reseed_rng()

    def infer_relative_search_space(self, study: optuna.Study, trial: FrozenTrial) -> Dict[str, BaseDistribution]:
        if study._is_multi_objective():
            _fail_created_trial(study, trial)
            raise ValueError("OptimistSampler supports single-objective studies; this study has "
                             f"{len(study.directions)} objectives")
        with self._lock:
            if not _same_study(self._space_key, study):  # the space of one study
                self._space, self._space_key = _LatestSpace(), _StudyKey(study)
            space = self._space.calculate(study)
            relative = _RelativeSpace()
            for name, d in space.items():
                if d.single():
                    continue
                if isinstance(d, CategoricalDistribution) and name not in self._shadowed:
                    shadowed = [c for c in d.choices if not any(c is r for r in _reachable_choices(d))]
                    if shadowed:
                        self._shadowed.add(name)
                        warnings.warn(f"OptimistSampler: parameter '{name}': Optuna never runs the choices "
                                      f"{', '.join(map(repr, shadowed))}, equal in Python to earlier ones "
                                      f"(it stores a choice as its list.index); they are left out of the search",
                                      stacklevel=2)
                why = _unrepresentable(name, d)
                if why is None:
                    relative[name] = d
                elif name not in self._unrepresentable:
                    self._unrepresentable.add(name)
                    warnings.warn(f"OptimistSampler: parameter '{name}' is sampled by "
                                  f"{type(self._independent).__name__}: {why}", stacklevel=2)
            usable = lambda name, d: not d.single() and _unrepresentable(name, d) is None  # noqa: E731
            inferred = self._space.conditional(dict(relative), usable) if self._infer_conditions else []
            for name, d, parent, values in inferred:
                relative.pop(name, None)  # a late parameter: after its parent
                relative[name] = d
                relative.conditions[name] = (parent, values)
        return relative

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: Dict[str, BaseDistribution]) -> Dict[str, Any]:
        try:
            return self._sample_relative(study, trial, search_space)
        except Exception:
            _fail_created_trial(study, trial)
            raise

    def _sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                         search_space: Dict[str, BaseDistribution]) -> Dict[str, Any]:
        if not search_space:
            return {}
        for attempt in range(_ASK_ATTEMPTS):
            params = self._ask(study, trial, search_space)
            if not params:
                if attempt > 0:  # the point stored before is not this trial's any more
                    study._storage.set_trial_system_attr(trial._trial_id, _ASKED_KEY, None)
                return params
            # Another process sees this trial without parameters until the objective suggests them
            # (after any setup of its own): without the asked point it could suggest the same one.
            try:
                internal = {name: search_space[name].to_internal_repr(v) for name, v in params.items()}
            except (ValueError, TypeError):
                return params
            asked_at = time.time()
            study._storage.set_trial_system_attr(trial._trial_id, _ASKED_KEY, internal)
            study._storage.set_trial_system_attr(trial._trial_id, _ASKED_AT_KEY, asked_at)
            # Another process may have asked the same point between our reading of the trials and
            # this write (an ask takes tens of ms; a point given back is every worker's next
            # choice): read again, and when a trial that asked it before us holds it, give ours
            # back and ask with theirs pending. Of two such trials the later asks again, whichever
            # of them sees the other (the earlier may have read before the later wrote); both asking
            # again would ask alike, and clash again.
            if attempt + 1 == _ASK_ATTEMPTS or not self._held_before(study, trial, internal, asked_at):
                return params
            with self._lock:
                model = self._model
                asked = model.asked.pop(trial.number, None) if model is not None else None
                if asked is not None:
                    model.optimizer.withdraw(asked)
        return params

    @staticmethod
    def _held_before(study: optuna.Study, trial: FrozenTrial, internal: Dict[str, Any], asked_at: float) -> bool:
        """Whether another running trial, asked before `trial` (or running values it did not ask
        for), holds the point just asked for `trial`."""
        running = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))  # read anew from the storage
        for t in running:
            if t.number == trial.number:
                continue
            at = t.system_attrs.get(_ASKED_AT_KEY)
            if isinstance(at, (int, float)) and (at, t.number) > (asked_at, trial.number):
                continue  # asked after us: it asks again
            held = dict(t.system_attrs.get(_ASKED_KEY) or {})
            held.update({name: t.distributions[name].to_internal_repr(v) for name, v in t.params.items()
                         if name in t.distributions})
            if all(name in held and held[name] == v for name, v in internal.items()):
                return True
        return False

    def _ask(self, study: optuna.Study, trial: FrozenTrial,
             search_space: Dict[str, BaseDistribution]) -> Dict[str, Any]:
        if set(trial.system_attrs.get("fixed_params", {})) & set(search_space):
            # An enqueued trial (study.enqueue_trial) runs its own values: nothing to ask (an ask it
            # would not run could only be told as a failure); the parameters it leaves free are
            # sampled independently, and the trial is told as a user point when it finishes.
            return {}
        search_space = _without_orphans(search_space, _fixed_params(study, self))
        trials = study.get_trials(deepcopy=False)
        if not search_space or sum(t.state == TrialState.COMPLETE for t in trials) < self._n_startup_trials:
            return {}
        with self._lock:
            model = self._model_for(search_space, study)
            self._sync(model, trials, exclude=trial.number)
            if model.relative_exhausted:
                return {}
            try:
                asked = model.optimizer.ask()
            except SpaceExhausted:
                # Every point of the finite space is evaluated (or running): nothing new to suggest.
                if self._covers_every_parameter(model, trials):
                    stop = _stop(study, self._independent, " after this trial")
                    warnings.warn("OptimistSampler: every point of the search space has been evaluated or is "
                                  f"running (a deterministic objective); {stop}", stacklevel=2)
                else:
                    # Other parameters (conditional ones, sampled independently) still vary: only the
                    # shared part is used up, and it is sampled independently from now on.
                    model.relative_exhausted = True
                    warnings.warn("OptimistSampler: every combination of the parameters shared by all trials ("
                                  + ", ".join(model.params) + ") has been evaluated; they are sampled by "
                                  f"{type(self._independent).__name__} from now on", stacklevel=2)
                return {}
            model.asked[trial.number] = asked
            return model.optuna_params(asked)

    @staticmethod
    def _covers_every_parameter(model: _Model, trials: Sequence[FrozenTrial]) -> bool:
        """Whether the relative space holds every varying parameter of the finished trials: only
        then does its exhaustion exhaust the study."""
        for t in trials:
            if t.state not in _FINISHED:
                continue
            for name, dist in t.distributions.items():
                if name not in model.params and not dist.single():
                    return False
        return True

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        if (self._warn_independent and self._model is not None and param_name not in self._warned
                and param_name not in self._model.search_space):
            self._warned.add(param_name)
            warnings.warn(f"OptimistSampler: parameter '{param_name}' (trial {trial.number}) is sampled by "
                          f"{type(self._independent).__name__}: it is not in every completed trial since its first, and no "
                          "categorical or small integer parameter's values tell when it is used (a conditional parameter "
                          "before its trials show that, or a new one before a trial with it completes). Pass "
                          "warn_independent_sampling=False if this is intended.",
                          stacklevel=2)
        return self._independent.sample_independent(study, trial, param_name, param_distribution)

    def after_trial(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
                    values: Optional[Sequence[float]]) -> None:
        with self._lock:
            model = self._model
            if model is not None and trial.number in model.asked:
                self._tell(model, trial.number, trial.params, state, values)
                # The last point of a finite space: stop now (as GridSampler does), rather than
                # after one more trial that could only repeat a point.
                if (not self._noisy and not model.relative_exhausted and model.optimizer.exhausted
                        and self._covers_every_parameter(model, study.get_trials(deepcopy=False))):
                    warnings.warn("OptimistSampler: every point of the search space has been evaluated (a "
                                  "deterministic objective); " + _stop(study, self._independent), stacklevel=2)
        self._independent.after_trial(study, trial, state, values)

    # ---- the optimizer of the current relative search space ----
    def _model_for(self, search_space: _RelativeSpace, study: optuna.Study) -> _Model:
        # A sampler used for another study starts afresh (_StudyKey); a new condition (a parent
        # value seen with or without its child for the first time) rebuilds the optimizer too.
        conditions = search_space.conditions
        if (self._model is None or not _same_study(self._model.study_key, study)
                or self._model.search_space != search_space or self._model.conditions != conditions):
            direction = "maximize" if study.direction == optuna.study.StudyDirection.MAXIMIZE else "minimize"
            self._model = _Model(_StudyKey(study), search_space, conditions, direction, self._make_optimizer)
        return self._model

    def _sync(self, model: _Model, trials: Sequence[FrozenTrial], exclude: int) -> None:
        """Tells the optimizer every finished trial it has not seen, in trial order, and records
        the running trials of other workers as pending."""
        for t in trials:
            if t.number == exclude or t.number in model.told:
                continue
            if t.state in _FINISHED:
                self._tell(model, t.number, t.params, t.state, t.values)
            elif t.state == TrialState.RUNNING and t.number not in model.asked:
                point = model.point(model.asked_params(t))
                if point is not None:  # another worker's trial with every parameter already chosen
                    model.asked[t.number] = model.optimizer.add_pending(point)

    def _tell(self, model: _Model, number: int, params: Dict[str, Any], state: TrialState,
              values: Optional[Sequence[float]]) -> None:
        model.told.add(number)
        asked = model.asked.pop(number, None)
        if asked is not None and not any(t.id == asked.id for t in model.optimizer.pending):
            # Another trial's tell of the same point settled this ask (a told point settles a
            # pending one equal to it: two threads, or an enqueued trial, ran one point); this one
            # is told as a point. Its tell raised "trial N is not pending" out of study.optimize.
            asked = None
        value = values[0] if state == TrialState.COMPLETE and values else None
        ok = value is not None and not math.isnan(value)  # +-inf completes an Optuna trial
        why = "pruned" if state == TrialState.PRUNED else f"trial {number} failed ({state.name})"
        ran = asked is not None and all(k in params and params[k] == v for k, v in model.optuna_params(asked).items())
        if ran:
            model.optimizer.tell(asked, model.told_value(value)) if ok else model.optimizer.tell_failed(asked, why)
            return
        if asked is not None:
            # The trial ran other values (fixed or enqueued parameters), or ended before its
            # objective suggested them all: the asked point was not evaluated, and is given back.
            # Given back a second time by a trial that had started on it, it fails for good: a
            # branch failing after its first parameters had it asked again for every trial.
            key = repr(sorted(model.optuna_params(asked).items()))
            started = any(k in params for k in model.optuna_params(asked))
            if state != TrialState.COMPLETE and started and key in model.given_back:
                model.optimizer.tell_failed(asked, f"{why}, twice before suggesting every asked value")
                return
            if started:
                model.given_back.add(key)
            model.optimizer.withdraw(asked)
        point = model.point(params)
        if point is not None:
            model.optimizer.tell(point, model.told_value(value)) if ok else model.optimizer.tell_failed(point, why)

    @property
    def seed(self) -> int:
        """The seed in use (the one drawn for ``seed=None``, or by ``reseed_rng``): a sampler made with
        it runs the same trials in a sequential study."""
        return self._seed

    @property
    def optimizer(self) -> Optional[Optimizer]:
        """The optimist Optimizer of the current relative search space (None before it exists)."""
        return None if self._model is None else self._model.optimizer

    def __repr__(self) -> str:
        return f"OptimistSampler({self._algorithm!r}, seed={self._seed})"
