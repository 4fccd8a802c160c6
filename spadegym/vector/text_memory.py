"""Text observations in ``AsyncVectorEnv``'s shared memory, so its default settings work.

Gymnasium keeps a ``Text`` observation in shared memory as indices into the space's small
charset, which cannot carry arbitrary text, and it reads that memory once into a tuple of
strings that never changes again. Here each environment gets ``max_length`` unsigned 32-bit
code points (32 KiB for an 8,192-character observation), zero-padded (a NUL is not printable,
so it never occurs in an observation), and the vector reads them through ``SharedTexts``, a
live view: ``copy=True`` (the default) hands out a tuple snapshot of it at each step.
``spadegym/__init__.py`` registers the layout for ``spadegym.env.PrintableText``: every import of
the environment runs that file first, and the environment, a floor below, does not import this.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from gymnasium.vector.utils import shared_memory

__all__ = ["SharedTexts", "register"]


class SharedTexts(Sequence[str]):
    """The observations of ``n`` environments, decoded from shared memory on each read."""

    def __init__(self, buffer: Any, n: int, max_length: int):
        self._buffer = buffer
        self._n = n
        self._max_length = max_length

    def _codes(self) -> np.ndarray:
        return np.frombuffer(self._buffer.get_obj(), dtype=np.uint32).reshape(
            self._n, self._max_length
        )

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        row = self._codes()[index]
        end = int(np.argmin(row)) if row[-1] == 0 else self._max_length
        return row[:end].tobytes().decode("utf-32-le")

    def __iter__(self) -> Iterator[str]:
        return (self[k] for k in range(self._n))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


def _create(space: Any, n: int = 1, ctx: Any = None) -> Any:
    import multiprocessing

    return (ctx or multiprocessing).Array(np.dtype(np.uint32).char, n * space.max_length)


def _read(space: Any, memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(memory, n, space.max_length)


def _write(space: Any, index: int, value: str, memory: Any) -> None:
    codes = np.frombuffer(str(value).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if len(codes) > space.max_length:
        raise ValueError(
            f"an observation of {len(codes)} characters does not fit a space of at most "
            f"{space.max_length}."
        )
    size = space.max_length
    destination = np.frombuffer(memory.get_obj(), dtype=np.uint32)
    destination[index * size : index * size + len(codes)] = codes
    destination[index * size + len(codes) : (index + 1) * size] = 0


def register(space_class: type) -> None:
    """Use this layout for every observation space of ``space_class`` (a ``Text`` subclass)."""
    shared_memory.create_shared_memory.register(space_class)(_create)
    # Gymnasium types what a read returns as a dict, tuple or array; a Text space's is ours.
    shared_memory.read_from_shared_memory.register(space_class)(_read)  # type: ignore[arg-type]
    shared_memory.write_to_shared_memory.register(space_class)(_write)
