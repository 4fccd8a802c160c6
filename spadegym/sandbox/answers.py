"""What a worker answers, read on the host: class facts, step results, and checked values.

A worker is not trusted: every answer is an envelope checked for shape (``client`` kills a
worker that sends anything else), and every value in it is checked again against the contract
here. ``answer_value`` turns one answer into the value its request asks for, or raises the
``ProgramError`` it carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spadegym.errors import ProgramError
from spadegym.sandbox import protocol
from spadegym.sandbox.values import (
    ContractViolation,
    check_hint,
    check_reset,
    check_solution,
    check_step,
)

if TYPE_CHECKING:
    from spadegym.contract import ProgramErrorKind

MAX_MESSAGE_CHARS = protocol.MAX_MESSAGE_CHARS
"""Longest error message taken from a worker."""

ANSWER_KINDS = frozenset(
    {"exception", "contract", "timeout", "policy", "missing", "broken", "protocol"}
)
"""Kinds a worker may report; any other is reported as ``"exception"``."""

Request = dict[str, Any]
"""A request the host sends a worker (``protocol``'s request builders make them)."""

Answer = dict[str, Any] | ProgramError
"""A worker's answer to one request: a well-formed envelope (``protocol.read_answer``: an
``ok_answer`` or an ``error_answer``), or the ``ProgramError`` that took its place."""


@dataclass(frozen=True)
class ProgramInfo:
    """What a worker reports about a loaded program's environment class."""

    program: int
    class_name: str
    doc: str | None
    max_turns: int | None
    num_players: int | None
    skill: str | None
    has_reset: bool
    has_step: bool
    has_solution: bool
    has_hint: bool
    has_check: bool
    tool_env: bool
    tools: Any

    @classmethod
    def from_wire(cls, value: Any) -> ProgramInfo:
        """Build from a worker's ``load`` answer, checking every field's exact type.

        Raises:
            ProgramError: the answer is malformed (kind ``"crash"``: the worker lied).
        """
        types = {
            "program": (int,),
            "class": (str,),
            "doc": (str, type(None)),
            "max_turns": (int, type(None)),
            "num_players": (int, type(None)),
            "skill": (str, type(None)),
            "tool_env": (bool,),
        }
        types.update({f"has_{m}": (bool,) for m in ("reset", "step", "solution", "hint", "check")})
        if type(value) is not dict or any(
            type(value.get(k, ...)) not in allowed for k, allowed in types.items()
        ):
            raise ProgramError("the worker sent a malformed answer to load.", "crash")
        if "tools" not in value:
            raise ProgramError("the worker sent a malformed answer to load.", "crash")
        fields = {k: value[k] for k in types if k not in ("program", "class")}
        return cls(
            program=value["program"], class_name=value["class"], tools=value["tools"], **fields
        )


@dataclass(frozen=True)
class StepResult:
    """One step of one environment instance."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


def _id_value(value: Any) -> int:
    if type(value) is not int:
        raise ProgramError("the worker sent a malformed instance id.", "crash")
    return value


def _pong(value: Any) -> str:
    if value != "pong":
        raise ProgramError("the worker sent a malformed answer to ping.", "crash")
    return value


def _checked(checker: Any) -> Any:
    def read(value: Any) -> Any:
        try:
            return checker(value)
        except ContractViolation as exc:
            raise ProgramError(str(exc), "contract") from None

    return read


_check_reset = _checked(check_reset)
_check_step = _checked(check_step)

_READERS = {
    "ping": _pong,
    "load": ProgramInfo.from_wire,
    "new": _id_value,
    "reset": lambda value: tuple(_check_reset(value)),
    "step": lambda value: StepResult(*_check_step(value)),
    "solution": _checked(check_solution),
    "hint": _checked(check_hint),
    "close": lambda value: None,
    "unload": lambda value: None,
}


def answer_value(request: Request, answer: Answer) -> Any:
    """The checked value of ``answer`` to ``request``.

    ``reset`` gives ``(observation, info)``, ``step`` a ``StepResult``, ``load`` a
    ``ProgramInfo``, ``new`` an instance id, ``solution`` a list of str, ``hint`` a str.

    Raises:
        ProgramError: the program failed, broke the contract, or the worker answered wrongly.
    """
    if isinstance(answer, ProgramError):
        raise answer
    error = protocol.answer_error(answer)
    if error is not None:
        found, message = error
        kind: ProgramErrorKind = found if found in ANSWER_KINDS else "exception"  # type: ignore[assignment]
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[:MAX_MESSAGE_CHARS] + "..."
        raise ProgramError(message, kind)
    called = protocol.call_name(request)
    reader = _READERS.get(called)
    if reader is None:
        raise ProgramError(f"no answer is expected to {called!r}.", "protocol")
    return reader(protocol.answer_value(answer))


def answer_or_error(request: Request, answer: Answer) -> Any:
    """``answer_value``, or the ``ProgramError`` it raised (for batches: failures in place)."""
    try:
        return answer_value(request, answer)
    except ProgramError as exc:
        return exc
