"""``spadegym`` as a reasoning-gym dataset: ``reasoning_gym.create_dataset("spadegym", ...)``.

``import spadegym`` registers it once reasoning-gym is imported (``install``), without
importing reasoning-gym itself, which is slow and optional: when reasoning-gym is already
imported it registers at once, else a finder on ``sys.meta_path`` registers it right after
reasoning-gym's own import finishes. Nothing is printed; a registration that fails (another
dataset named ``spadegym``, a reasoning-gym whose factory changed) warns and leaves
reasoning-gym as it was.

Then the dataset works as reasoning-gym's own do::

    import reasoning_gym
    data = reasoning_gym.create_dataset("spadegym", ids=["spade/ClockShift-v0"], size=8, seed=1)
    score = reasoning_gym.get_score_answer_fn("spadegym")(reply, data[0])

and inside a ``CompositeDataset`` beside reasoning-gym's tasks (the composite routes scoring by
``metadata["source_dataset"]``, which is ``"spadegym"``). ``get_score_answer_fn`` builds the
dataset with no ids: such a dataset holds no items but scores any spadegym item from the item
alone (``spadegym.integrations.dataset.score_answer``).
"""

from __future__ import annotations

import importlib.abc
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NAME", "install", "register"]

NAME = "spadegym"
"""The dataset's name in reasoning-gym's registry."""

_TARGET = "reasoning_gym"


def register() -> bool:
    """Register the dataset with the imported reasoning-gym; whether it is registered now."""
    try:
        from reasoning_gym import factory
    except ImportError:
        return False
    if NAME in factory.DATASETS:
        return factory.DATASETS[NAME][0].__module__ == __name__
    try:
        dataset_cls, config_cls = _classes()
        factory.register_dataset(NAME, dataset_cls, config_cls)
    except Exception as exc:  # reasoning-gym's import must survive a registration that fails
        warnings.warn(
            f"spadegym could not register its dataset with reasoning-gym ({exc}); "
            "reasoning_gym.create_dataset('spadegym') will not work.",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    return True


def _classes() -> tuple[type, type]:
    from reasoning_gym.dataset import ProceduralDataset

    from spadegym.errors import ConfigError, SpadegymError
    from spadegym.integrations.dataset import SpadeDataset, score_answer

    @dataclass
    class SpadegymConfig:
        """Configuration of the ``spadegym`` dataset (``SpadeDataset``'s arguments).

        Attributes:
            ids: registered single-turn environment ids (none: a dataset that only scores).
            size: items.
            seed: names the instances (None: reasoning-gym draws one).
            difficulty: ``options={"difficulty": d}`` of every instance, 1..5.
            hint: append each instance's hint to its question.
            workers: sandbox workers that generate and score items.
        """

        ids: Sequence[str] = field(default_factory=list)
        size: int = 500
        seed: int | None = None
        difficulty: int | None = None
        hint: bool = False
        workers: int = 1

        def validate(self) -> None:
            """Refuse a size below 1 (the ids are checked when the dataset is made)."""
            if not isinstance(self.size, int) or self.size < 1:
                raise ConfigError(f"size={self.size!r}: a dataset holds at least 1 item.")

    class SpadegymDataset(ProceduralDataset):
        """reasoning-gym's view of a ``SpadeDataset`` (see the module)."""

        def __init__(self, config: SpadegymConfig):
            super().__init__(config=config, seed=config.seed, size=config.size)
            self.data = None
            if config.ids:
                self.data = SpadeDataset(
                    list(config.ids) if not isinstance(config.ids, str) else config.ids,
                    config.size,
                    self.seed,
                    difficulty=config.difficulty,
                    hint=config.hint,
                    workers=config.workers,
                )

        def __getitem__(self, idx: int) -> dict[str, Any]:
            if self.data is None:
                raise SpadegymError(
                    "this spadegym dataset was made without ids, so it holds no items; "
                    "write create_dataset('spadegym', ids=[...], ...)."
                )
            return self.data[idx]

        def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
            if self.data is None:
                return score_answer(answer, entry)
            return self.data.score_answer(answer, entry)

    SpadegymConfig.__module__ = SpadegymDataset.__module__ = __name__
    return SpadegymDataset, SpadegymConfig


class _Loader(importlib.abc.Loader):
    """reasoning-gym's own loader, registering the dataset once its module has run."""

    def __init__(self, loader: Any):
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        register()

    def __getattr__(self, name: str) -> Any:  # resources, source and the rest: the real one's
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader that the other finders give reasoning-gym."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != _TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


def install() -> None:
    """Register now if reasoning-gym is imported, else when it is (see the module)."""
    if _TARGET in sys.modules:
        register()
    elif not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
