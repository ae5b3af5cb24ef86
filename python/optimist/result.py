"""The result of minimize/maximize, in the style of scipy's OptimizeResult and scikit-optimize's."""
from __future__ import annotations

from typing import Any


class OptimizeResult(dict):
    """What a run did, as a dict with attribute access.

    ========================  =================================================================
    ``x``, ``fun``            best observed point (in the space's form) and its observed value
    ``x_iters``, ``func_vals``  every evaluated point and its value (NaN when it failed), in order
    ``recommended_x``         the algorithm's answer (``Optimizer.recommend``; by default ``x``)
    ``recommended_f``         its noise-free value for a benchmark problem, else its observed value
                              when it was evaluated (the mean of its values when a noisy objective
                              was evaluated there several times), else None
    ``nfev``, ``n_failed``    evaluations (failed ones included) and failed evaluations
    ``success``, ``status``,  False when the objective failed; why the run ended: "budget",
    ``message``               "time limit", "target reached", "objective failed", "cancelled", "space exhausted"
    ``best_f``, ``simple_regret``, ``cum_regret``  for problems with a known optimum (else None)
    ``history``               :class:`optimist.History`: arrays y, f, regret, cum_regret, best_f,
                              suggest_s, eval_s, tell_s, failed, errors; ``history.to_pandas()``
    ``timings``               total_s, suggest_s (asks), tell_s (tells), eval_s (objective)
    ``trace``                 the trace file written (None without ``trace=``)
    ``optimizer``             the :class:`optimist.Optimizer`, to ask for more or inspect (None in a
                              pickled or deep copy: an optimizer's state lives in C++ and does not
                              pickle; tell a new one ``history`` or resume from ``trace``)
    ``algorithm``, ``options``, ``seed``, ``space``
    ``decisions``             what ``auto`` chose and why: {"algorithm", "options", "reason"} ({} otherwise)
    ``notes``                 what to know beyond the numbers, each also warned (e.g. every value
                              the same: an objective that ignores its parameters); usually []
    ========================  =================================================================
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"OptimizeResult has no '{name}'; keys: {sorted(self)}") from None

    __setattr__ = dict.__setitem__  # type: ignore[assignment]
    __delattr__ = dict.__delitem__  # type: ignore[assignment]

    # A result leaves its process (a process pool's or Dask's task returns it, joblib.dump) without
    # its optimizer, which cannot be pickled; a shallow copy keeps it.
    def __reduce__(self):
        state = dict(self)
        if state.get("optimizer") is not None:
            state["optimizer"] = None
        return (OptimizeResult, (state,))

    def __copy__(self) -> "OptimizeResult":
        return OptimizeResult(self)

    def __dir__(self):
        return list(self.keys())

    def __repr__(self) -> str:
        shown = ("x", "fun", "nfev", "n_failed", "status", "message", "recommended_x", "trace")
        width = max(map(len, shown))
        return "\n".join(f"{k.rjust(width)}: {self.get(k)!r}" for k in shown)
