"""optimist: global optimization of expensive, noisy black-box functions.

>>> import optimist
>>> res = optimist.minimize(lambda p: (p["x"] - 1) ** 2, {"x": optimist.Float(-3, 3)}, budget=20, seed=0)
>>> round(res.x["x"], 1)
1.0

One call (:func:`minimize`, :func:`maximize`), ask/tell (:class:`Optimizer`), spaces
(:class:`Space`, :class:`Float`, :class:`Int`, :class:`Categorical`), benchmark problems
(:mod:`optimist.problems`), traces (:func:`read_trace`), GO-UCB with your own model
(:class:`ParametricModel`), parallel evaluation on any concurrent.futures executor, studies shared
by workers through SQLite or PostgreSQL (:class:`Study`), and an Optuna sampler
(:mod:`optimist.integration`). docs/python.md is the guide.
"""
from . import _optimist
from ._loop import Evaluation, ExecutorStopped
from ._values import ObjectiveError, ObjectiveTimeout
from ._minimize import maximize, minimize
from .models import ParametricModel, check_gradients, check_model
from .optimizer import History, Observation, Optimizer, Trial, algorithm_names, algorithms
from .result import OptimizeResult
from .space import Categorical, Float, Int, Space
from .study import Study, StudyTrial, TrialRecord
from .trace import Trace, read_trace
from . import problems

NumericalError = _optimist.NumericalError
SpaceExhausted = _optimist.SpaceExhausted
__version__ = _optimist.__version__
__revision__ = _optimist.__revision__

__all__ = [
    "Categorical", "Evaluation", "ExecutorStopped", "Float", "History", "Int", "NumericalError", "ObjectiveError", "ObjectiveTimeout", "Observation",
    "OptimizeResult", "Optimizer", "ParametricModel", "Space", "SpaceExhausted", "Study", "StudyTrial", "Trace", "Trial", "TrialRecord",
    "algorithm_names", "algorithms",
    "check_gradients", "check_model", "maximize", "minimize", "problems", "read_trace", "__revision__", "__version__",
]
