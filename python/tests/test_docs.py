"""The examples in the package's docstrings run and give what they show."""
import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["optimist", "optimist.optimizer", "optimist.problems",
                                    "optimist.integration.optuna"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_help_describes_the_public_api():
    import optimist

    for name in optimist.__all__:
        obj = getattr(optimist, name)
        if callable(obj) and not isinstance(obj, type(optimist)):
            assert obj.__doc__ and len(obj.__doc__) > 20, name
