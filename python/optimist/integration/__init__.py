"""Integrations with other libraries: :class:`OptimistSampler` for Optuna (imported on first use,
so that ``import optimist`` does not need Optuna)."""
from typing import Any

__all__ = ["OptimistSampler"]


def __getattr__(name: str) -> Any:
    if name == "OptimistSampler":
        from .optuna import OptimistSampler

        return OptimistSampler
    raise AttributeError(f"module 'optimist.integration' has no attribute '{name}'")
