"""``ProgramEnv``: the Gymnasium face of an environment program running in the sandbox."""

from __future__ import annotations

import os
import stat
import string
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from spadegym import contract
from spadegym.contract import episode_outcome
from spadegym.errors import ConfigError, ProgramError, SpadegymError
from spadegym.sandbox import EnvHandle, Handle, Pool, SandboxConfig, make_worker
from spadegym.sandbox.client import Worker

SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"
"""Characters that ``PrintableText.sample`` draws from."""

SAMPLE_MAX_LENGTH = 256
"""Longest string ``PrintableText.sample`` draws."""

_ALLOWED_CONTROLS = frozenset("\n\r\t")


class PrintableText(spaces.Text):
    """A ``Text`` space that contains any printable text, not only Gymnasium's alphanumerics.

    Membership accepts every string of the right length whose characters are printable (any
    script, any symbol) or newline, carriage return and tab; ``sample`` draws from ASCII letters,
    digits, punctuation, space and newline. ``AsyncVectorEnv`` keeps it in shared memory as code
    points (``spadegym.vector.text_memory``, registered for this class by ``import spadegym``).
    """

    def __init__(self, max_length: int, min_length: int = 0, seed: Any = None):
        super().__init__(
            max_length=max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed
        )

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a str of allowed length made of printable characters."""
        if not isinstance(x, str) or not self.min_length <= len(x) <= self.max_length:
            return False
        return x.isprintable() or all(c.isprintable() or c in _ALLOWED_CONTROLS for c in x)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random string of up to 256 characters (longer ones only slow checkers down)."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        length = int(
            self.np_random.integers(
                self.min_length, max(self.min_length, min(self.max_length, SAMPLE_MAX_LENGTH)) + 1
            )
        )
        indices = self.np_random.integers(0, len(SAMPLE_CHARSET), size=length)
        return "".join(SAMPLE_CHARSET[i] for i in indices)

    def __repr__(self) -> str:
        return f"PrintableText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PrintableText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )


def _player(info: dict[str, Any], default: int = 0) -> int:
    """The seat to move next, from a two-player game's info (0 when it does not say)."""
    player = info.get("player") if isinstance(info, dict) else None
    return player if player in (0, 1) else default


def check_difficulty(difficulty: Any) -> None:
    """Refuse a default difficulty that is not None or a difficulty (``contract``)."""
    if difficulty is not None and not contract.is_difficulty(difficulty):
        raise SpadegymError(
            f"difficulty={difficulty!r}: difficulties are ints in "
            f"{contract.MIN_DIFFICULTY}..{contract.MAX_DIFFICULTY} (or None)."
        )


class SourceTypeError(SpadegymError, TypeError):
    """A program was given as something other than text (bytes, a path object, ...)."""


def check_seed(seed: Any) -> None:
    """Refuse a seed that is not None or an int >= 0: one rule for every way to reset.

    ``gymnasium.make(...).reset``, ``make_vec`` (one seed or one per instance) and
    ``spadegym serve`` all apply it, as Gymnasium's own seeding does.

    Raises:
        ConfigError: a negative seed, or one that is not an int.
    """
    seeds = seed if isinstance(seed, (list, tuple)) else [seed]
    for value in seeds:
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ConfigError(
                f"seed={value!r}: a seed is an int >= 0 (or None for a fresh instance)."
            )


def check_options(options: Any) -> None:
    """Refuse reset options that are not a dict, or name a difficulty outside 1..5."""
    if options is None:
        return
    if not isinstance(options, dict):
        raise ConfigError(
            f"options={options!r}: reset options are a dict, e.g. {{'difficulty': 3}}."
        )
    if options.get("difficulty") is not None and not contract.is_difficulty(options["difficulty"]):
        raise ConfigError(
            f"options['difficulty']={options['difficulty']!r}: difficulties are ints in "
            f"{contract.MIN_DIFFICULTY}..{contract.MAX_DIFFICULTY} (or None)."
        )


def read_program_file(path: str | os.PathLike[str]) -> str:
    """The text of a program file, refusing anything but a regular UTF-8 file by name.

    A FIFO or a device is refused before it is opened (reading one can block forever).

    Raises:
        ConfigError: the file is missing, a folder, not a regular file, unreadable or not
            UTF-8 text.
    """
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise ConfigError(f"{name}: no such program file.") from None
    except OSError as exc:
        raise ConfigError(f"{name}: cannot be read ({exc.strerror or exc}).") from None
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{name} is a folder; give the program file (a .py file).")
    if not stat.S_ISREG(mode):
        raise ConfigError(
            f"{name} is not a regular file (a FIFO, socket or device); give a program file."
        )
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ConfigError(f"{name}: cannot be read ({exc.strerror or exc}).") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8."
        ) from None


def with_difficulty(
    options: dict[str, Any] | None, difficulty: int | None
) -> dict[str, Any] | None:
    """``options`` with the default ``difficulty`` added when they name none."""
    if difficulty is None or (isinstance(options, dict) and "difficulty" in options):
        return options
    return {**(options or {}), "difficulty": difficulty}


def observation_space() -> PrintableText:
    """The observation space of every spadegym environment."""
    return PrintableText(max_length=contract.MAX_OBSERVATION_CHARS)


def action_space() -> PrintableText:
    """The action space of every spadegym environment: a reply of the player."""
    return PrintableText(max_length=contract.MAX_ACTION_CHARS)


class ProgramEnv(gymnasium.Env):
    """A Gymnasium environment backed by an environment program (see CONTRACT.md).

    The program runs in an isolated worker process unless ``isolation="none"`` (which runs it
    in this process with no security at all: trusted programs only). Observations and
    actions are text. The episode is truncated after ``max_turns`` steps; when it ends, ``info``
    carries ``episode_outcome`` (the last reward if terminated, else 0.0; for two-player games
    the program's ``[r0, r1]``) and ``episode_turns``.

    Args:
        source: the program text (or give ``path``).
        path: a file holding the program.
        max_turns: override the program's ``max_turns``.
        isolation: ``"process"`` (default) or ``"none"`` (trusted programs only: no security).
        sandbox: a ``SandboxConfig`` for the worker (its ``isolation`` is overridden by the
            ``isolation`` argument when that is given).
        pool: share the workers of a pool (``spadegym.sandbox.Pool``: a ``SandboxPool`` or a
            ``RaySandboxPool``) instead of starting a dedicated one.
        on_error: ``"raise"`` raises ``ProgramError`` when the program fails;
            ``"terminate"`` ends the episode instead, with reward 0.0 and ``info["error"]``
            (a failed ``reset`` returns the failure as its observation, with
            ``info["error"]``, and the next ``step`` ends the episode).
        render_mode: ``"ansi"`` returns the last observation from ``render()``.
        difficulty: the default difficulty (1..5) of ``reset``: every reset whose options
            name none plays ``options={"difficulty": difficulty}``
            (``gymnasium.make(id, difficulty=3)``).

    After ``gymnasium.make``, the privileged accessors are on the unwrapped environment:
    ``env.unwrapped.solution()``, ``env.unwrapped.hint()``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        source: str | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        max_turns: int | None = None,
        isolation: str | None = None,
        sandbox: SandboxConfig | None = None,
        pool: Pool[Any] | None = None,
        on_error: str = "raise",
        render_mode: str | None = None,
        difficulty: int | None = None,
    ):
        if (source is None) == (path is None):
            raise SpadegymError(
                "ProgramEnv needs exactly one of source= (the program text) or "
                "path= (a file holding it)."
            )
        if path is not None:
            source = read_program_file(path)
        elif not isinstance(source, str):
            raise SourceTypeError(
                f"ProgramEnv(source=...) takes the program as str; got "
                f"{type(source).__name__}. Decode bytes first (source.decode('utf-8')), or "
                "pass path= for a file."
            )
        if on_error not in ("raise", "terminate"):
            raise SpadegymError(
                f"on_error={on_error!r} is not supported; use 'raise' or 'terminate'."
            )
        if render_mode not in (None, "ansi"):
            raise SpadegymError(f"render_mode={render_mode!r} is not supported; use 'ansi'.")
        check_difficulty(difficulty)
        self.difficulty = difficulty
        config = sandbox or SandboxConfig()
        if isolation is not None and isolation != config.isolation:
            config = SandboxConfig(**{**config.__dict__, "isolation": isolation})
        self.source = source
        self.on_error = on_error
        self.render_mode = render_mode
        self._pool = pool
        self._worker: Worker | None = None
        try:
            if pool is not None:
                self._handle: Handle = pool.open(source, str(path or "<program>"))
            else:
                self._worker = make_worker(config)
                self._handle = EnvHandle(self._worker, source, str(path or "<program>"))
        except BaseException:
            self.close()
            raise
        info = self._handle.info
        self.program_info = info
        try:
            turns = max_turns if max_turns is not None else info.max_turns
            self.max_turns = contract.check_max_turns(turns, " (or pass max_turns=)")
        except SpadegymError:
            self.close()
            raise
        self.num_players = info.num_players or 1
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._turn = 0
        self._done = True
        self._failed: dict[str, Any] | None = None
        self._last_obs = ""

    @property
    def title(self) -> str:
        """The first line of the program's docstring."""
        doc = (self.program_info.doc or "").strip()
        return doc.splitlines()[0].strip() if doc else self.program_info.class_name

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode; ``seed=None`` draws one from the env's generator.

        Raises:
            ConfigError: a seed that is not an int >= 0, or a difficulty outside 1..5.
        """
        check_seed(seed)
        check_options(options)
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
        self._turn = 0
        self._failed = None
        self._mover = 0
        try:
            obs, info = self._handle.reset(seed, with_difficulty(options, self.difficulty))
        except ProgramError as exc:
            if self.on_error == "raise":
                self._done = True
                raise
            self._failed = {"kind": exc.kind, "message": str(exc)}
            obs, info = f"The environment failed to reset: {exc}", {"error": self._failed}
        self._done = False
        self._last_obs = obs
        self._mover = _player(info)
        return obs, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one reply; truncates at ``max_turns``."""
        if self._done:
            raise SpadegymError("the episode is over; call reset() before step().")
        if not isinstance(action, str):
            raise SpadegymError(f"actions are str replies; got {type(action).__name__}.")
        try:
            if self._failed is not None:  # the reset failed (on_error="terminate")
                raise ProgramError(self._failed["message"], self._failed["kind"])
            result = self._handle.step(action)
            obs, reward, terminated, truncated, info = (
                result.observation,
                result.reward,
                result.terminated,
                result.truncated,
                result.info,
            )
        except ProgramError as exc:
            if self.on_error == "raise":
                self._done = True
                raise
            obs, reward, terminated, truncated = f"The environment failed: {exc}", 0.0, True, False
            info = {"error": {"kind": exc.kind, "message": str(exc)}}
        self._turn += 1
        mover, self._mover = self._mover, _player(info, 1 - self._mover)
        if not terminated and self._turn >= self.max_turns:
            truncated = True
        if terminated or truncated:
            self._done = True
            info = dict(info)
            info["episode_outcome"] = episode_outcome(
                reward, terminated, info, self.num_players, mover
            )
            info["episode_turns"] = self._turn
        self._last_obs = obs
        return obs, reward, terminated, truncated, info

    def hint(self) -> str | None:
        """The program's privileged hint for the current instance, or None if it has none.

        None too after a reset that failed under ``on_error="terminate"``.
        """
        if not self.program_info.has_hint or self._failed is not None:
            return None
        return self._handle.hint()

    def solution(self) -> list[str] | None:
        """The program's winning replies for the current instance, or None if it has none.

        None too after a reset that failed under ``on_error="terminate"``.
        """
        if not self.program_info.has_solution or self._failed is not None:
            return None
        return self._handle.solution()

    def render(self) -> str | None:
        """The last observation, for ``render_mode="ansi"``."""
        return self._last_obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Release the instance and stop the dedicated worker, if any."""
        handle = self.__dict__.pop("_handle", None)  # absent when __init__ failed or closed
        if handle is not None and self._pool is not None:
            self._pool.release(handle)
        worker = getattr(self, "_worker", None)
        if worker is not None:
            worker.close()
            self._worker = None
        super().close()
