"""The relative search space of OptimistSampler (optuna.py): which parameters of a define-by-run
study its optimizer models, with the conditions their trials show (docs/python.md, "The Optuna
sampler")."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from optuna.samplers import BaseSampler
from optuna.trial import TrialState


def _reachable_choices(dist: CategoricalDistribution) -> tuple:
    """The choices Optuna can run: it stores a choice as its list.index, so a choice equal to an
    earlier one (1 after True, 1.0 after 1) comes back as that one, and is never run."""
    out = []
    for i, c in enumerate(dist.choices):
        try:
            if dist.choices.index(c) != i:
                continue
        except ValueError:  # an object not equal to itself (NaN): only its own slot holds it
            pass
        out.append(c)
    return tuple(out)


# A parent of an inferred condition: a categorical or an integer with at most this many values (an
# integer with many values would explain a parameter's presence by chance after a few trials).
_MAX_PARENT_VALUES = 32


def _parent_values(dist: BaseDistribution) -> Optional[tuple]:
    """The values of a distribution that may be a condition's parent, or None."""
    if isinstance(dist, CategoricalDistribution):
        choices = _reachable_choices(dist)
        return choices if len(choices) <= _MAX_PARENT_VALUES else None
    if isinstance(dist, IntDistribution):
        if dist.log:
            n = dist.high - dist.low + 1
            return tuple(range(dist.low, dist.high + 1)) if n <= _MAX_PARENT_VALUES else None
        n = (dist.high - dist.low) // dist.step + 1
        return tuple(range(dist.low, dist.high + 1, dist.step)) if n <= _MAX_PARENT_VALUES else None
    return None


def _contains(dist: BaseDistribution, value: Any) -> bool:
    try:
        return bool(dist._contains(dist.to_internal_repr(value)))
    except (ValueError, TypeError):
        return False


def _same_choice(a: Any, b: Any) -> bool:
    """Equal as Optuna choices (1 and True are different choices; NaN is itself)."""
    if type(a) is not type(b):
        return False
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


class _LatestSpace:
    """The relative search space: each parameter that every completed trial has since the first
    that had it (numbered from the first), with the distribution of the latest completed trial
    that has it. Optuna's IntersectionSearchSpace keeps only the parameters of every completed
    trial, so a parameter added to the objective after some trials was random for the rest of the
    study; one that some later trial lacks (a conditional one) is left out here too, for good.
    It also drops a parameter whose distribution ever changed, so a range widened or narrowed
    mid-study (or an older trial added with another range) made it random for the rest of the
    study; here the trials outside the latest range are left out of the model instead."""

    def __init__(self) -> None:
        self._names_of: Dict[int, Set[str]] = {}  # completed trial number -> its parameters
        self._completed: List[Tuple[int, Dict[str, Any]]] = []  # (number, parameters), completed or pruned
        self._pruned: Set[int] = set()
        self._low = math.inf  # the first completed trial's number
        self._held: Dict[str, int] = {}  # parameter -> how many completed trials hold it
        self._splits: Dict[Tuple[str, str, bool], _Split] = {}  # (child, parent, from the first trial) -> what they show
        self._first: Dict[str, int] = {}  # parameter -> the first completed trial that has it
        self._dropped: Set[str] = set()  # lacked by a trial after its first: conditional
        self._latest: Dict[str, Tuple[int, BaseDistribution]] = {}

    def calculate(self, study: optuna.Study) -> Dict[str, BaseDistribution]:
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)):
            if t.number in self._names_of or t.number in self._pruned:
                continue
            # A pruned trial (pruned after it reported, so after it suggested what its branch uses)
            # shows which parameters its branch uses: without it a branch whose trials are all
            # pruned was never learnt, and its asked point, given back each time, was asked forever.
            self._completed.append((t.number, dict(t.params)))
            if t.state == TrialState.PRUNED:
                self._pruned.add(t.number)
                continue
            self._low = min(self._low, t.number)
            names = self._names_of[t.number] = set(t.distributions)
            for name in names:
                self._held[name] = self._held.get(name, 0) + 1
            for name in self._first.keys() - names - self._dropped:
                if t.number > self._first[name]:
                    self._dropped.add(name)  # for good: this trial stays after the first
            for name, d in t.distributions.items():
                if name not in self._latest or self._latest[name][0] < t.number:
                    self._latest[name] = (t.number, d)
                if t.number < self._first.get(name, math.inf):  # a new parameter (or an older trial
                    # completing late): the trials after this one that lack it make it conditional
                    self._first[name] = t.number
                    if any(number > t.number and name not in other for number, other in self._names_of.items()):
                        self._dropped.add(name)
        return {name: self._latest[name][1] for name in sorted(self._first) if name not in self._dropped}

    def conditional(self, relative: Dict[str, BaseDistribution],
                    usable: Callable[[str, BaseDistribution], bool]) -> List[Tuple[str, BaseDistribution, str, tuple]]:
        """The conditional parameters whose presence one earlier categorical or small integer
        parameter explains, as (name, distribution, parent, the parent's values where it is used),
        parents before children. A parameter C is explained by P when, in every completed (or
        pruned) trial since C's first, C is present exactly when P is present and holds one of a set
        of values: the condition lists every value of P's latest distribution not yet seen without C
        (a value not tried yet counts as using C; one trial showing otherwise changes the condition).
        A parameter of the relative space that the trials before its first lack (it appeared late)
        is conditional when a parent explains it over every trial, before its first too: else the
        trials before a branch's first trial, lacking its parameter, were left out of the model and
        their points asked again. Of several parents the one splitting the trials (some present
        without C) wins, then the one present in more of them, then in more trials in all (a
        parent with fewer values explained a layer's width by the width before it), then the one
        with fewer values, then the later first, then the name: a function of the trials, so
        deterministic."""
        late = {n for n, d in relative.items() if self._first[n] > self._low and usable(n, d)}
        settled: Dict[str, BaseDistribution] = {n: d for n, d in relative.items() if n not in late}
        out: List[Tuple[str, BaseDistribution, str, tuple]] = []
        pending = sorted(late, key=lambda n: (self._first[n], n)) + sorted(
            (n for n in self._dropped if usable(n, self._latest[n][1])), key=lambda n: (self._first[n], n))
        while pending:
            progress = False
            for name in list(pending):
                # A dropped parameter's parent is chosen from the trials since its first (those
                # before may lack it because it was added to the objective later: a parent chosen
                # over them explained that by chance); a late one's over every trial.
                since = -1 if name in late else self._first[name]
                best = None
                for parent, dist in settled.items():
                    values = _parent_values(dist)
                    split = self._split(name, since, parent, dist) if values is not None else None
                    if split is None:
                        continue
                    key = (not split.without_c, -split.support, -self._held[parent], len(values), -self._first[parent], parent)
                    if best is None or key < best[0]:
                        best = (key, parent, values, split)
                if best is not None:
                    _, parent, values, split = best
                    # The trials before its first tell the parent's values that do not use it too,
                    # when they agree (a layer's width is unused by the smaller n_layers seen before).
                    wider = self._split(name, -1, parent, settled[parent]) if since >= 0 else None
                    without = (wider or split).without_c
                    used = tuple(v for v in values if not any(_same_choice(v, w) for w in without))
                    dist = self._latest[name][1]
                    out.append((name, dist, parent, used))
                    settled[name] = dist
                    pending.remove(name)
                    progress = True
            if not progress:
                # Late parameters no parent explains stay unconditional (added to the objective
                # after some trials); the others may have them as parents.
                stay = [n for n in pending if n in late]
                if not stay:
                    break
                for n in stay:
                    settled[n] = relative[n]
                    pending.remove(n)
        return out

    def _split(self, child: str, since: int, parent: str, dist: BaseDistribution) -> Optional["_Split"]:
        """What the trials numbered from `since` show of the parent's values with and without the
        child, or None when the parent does not explain the child's presence. Kept per pair and
        brought up to date with the trials completed since (0.7 s a trial at 3,000 trials when
        recounted)."""
        key = (child, parent, since < 0)
        split = self._splits.get(key)
        if split is None or split.first != since or split.dist != dist:
            split = self._splits[key] = _Split(since, dist)
        split.update(child, parent, self._completed)
        return None if split.broken or not split.with_c else split


class _Split:
    """The values a parent holds in the completed trials since a child's first, with the child
    and without it, read up to `seen` trials; `broken` once a trial shows the parent does not
    explain the child (the child without the parent, or one value both with and without it)."""

    def __init__(self, first: int, dist: BaseDistribution) -> None:
        self.first, self.dist = first, dist
        self.seen = 0
        self.with_c: list = []
        self.without_c: list = []
        self.support = 0  # trials holding the parent (a value of its distribution)
        self.broken = False

    def update(self, child: str, parent: str, completed: List[Tuple[int, Dict[str, Any]]]) -> None:
        for number, params in completed[self.seen:]:
            if self.broken:
                break
            if number < self.first:
                continue
            has_child, has_parent = child in params, parent in params
            if has_child and not has_parent:
                self.broken = True
            if not has_parent:
                continue  # neither: the parent itself unused
            value = params[parent]
            if not _contains(self.dist, value):
                continue  # a value of an older distribution of the parent
            self.support += 1
            side, other = (self.with_c, self.without_c) if has_child else (self.without_c, self.with_c)
            if any(_same_choice(value, v) for v in other):
                self.broken = True
            elif not any(_same_choice(value, v) for v in side):
                side.append(value)
        self.seen = len(completed)


class _RelativeSpace(dict):
    """The relative search space Optuna holds for a trial and gives back to sample_relative, with
    the inferred conditions of its conditional parameters (name -> (parent, Optuna values))."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.conditions: Dict[str, Tuple[str, tuple]] = {}


def _without_orphans(search_space: Dict[str, BaseDistribution], fixed: Dict[str, Any]) -> _RelativeSpace:
    """The relative space for the model, where a parameter whose parent is not in it (fixed by
    PartialFixedSampler) is unconditional when the fixed value uses it, and left out (sampled
    independently, if ever suggested) when not."""
    conditions = getattr(search_space, "conditions", {})
    out = _RelativeSpace()
    for name, d in search_space.items():
        if name in conditions:
            parent, values = conditions[name]
            if parent in out:
                out.conditions[name] = conditions[name]
            elif not (parent in fixed and any(_same_choice(fixed[parent], v) for v in values)):
                continue
        out[name] = d
    return out


def _fixed_params(study: optuna.Study, sampler: BaseSampler) -> Dict[str, Any]:
    """The parameters a PartialFixedSampler wrapping `sampler` fixes (its private _fixed_params:
    Optuna 3.1 shows the wrapped sampler nothing else)."""
    fixed: Dict[str, Any] = {}
    outer = getattr(study, "sampler", None)
    while outer is not None and outer is not sampler:
        fixed.update(getattr(outer, "_fixed_params", None) or {})
        outer = getattr(outer, "_base_sampler", None)
    return fixed
