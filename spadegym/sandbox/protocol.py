"""The wire between host and worker: length-prefixed JSON frames, requests, and value checks.

Both sides import this module. The host builds every request with the ``*_request`` functions
below (which refuse what the worker would refuse, so a bad argument fails in the caller, with
a sentence, before anything is sent). The worker converts whatever a program returned into
plain JSON values with exact type checks (a ``str`` subclass could run program code when
encoded), capping sizes while it walks; the host decodes the frame and runs the same value
checks again, trusting nothing. Nothing is ever unpickled: a worker that escaped the policy
must not be able to run code in the host.
"""

from __future__ import annotations

import json
import math
import re
import struct
from typing import Any

from spadegym import contract
from spadegym.errors import ProgramError, SpadegymError

HEADER = struct.Struct(">I")
MAX_REQUEST_BYTES = 4 * contract.MAX_ACTION_CHARS + 8 * contract.MAX_PROGRAM_BYTES
"""Largest frame the worker accepts (a program, or a batch of long actions); the host splits a
batch that would be larger into several frames."""
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Largest frame the host accepts from a worker (a ``solution()`` answer; every other answer
has a far smaller limit, ``answer_limit``); anything bigger kills the worker."""
MAX_JSON_DEPTH = 32
MAX_OPTIONS_BYTES = 64 * 1024
"""Largest ``options`` of a ``reset``, as JSON."""
MAX_TOOLS_BYTES = 64 * 1024
"""Largest ``tools`` declaration of a ``ToolEnv``, as JSON."""
MAX_MESSAGE_CHARS = 2000
"""Longest error message a worker sends (it cuts longer ones; the host cuts again)."""
MAX_SKILL_CHARS = 200
"""Longest ``skill`` a worker reports."""

_CHAR_BYTES = 6  # the most one character takes in a frame: a control character as \uXXXX
_ENVELOPE_BYTES = _CHAR_BYTES * MAX_MESSAGE_CHARS + 4096  # an error answer, or a small value
_ANSWER_LIMITS: dict[str | None, int] = {
    "reset": _CHAR_BYTES * contract.MAX_OBSERVATION_CHARS + contract.MAX_INFO_BYTES,
    "step": _CHAR_BYTES * contract.MAX_OBSERVATION_CHARS + contract.MAX_INFO_BYTES,
    "hint": _CHAR_BYTES * contract.MAX_OBSERVATION_CHARS,
    "load": _CHAR_BYTES * (contract.MAX_PROGRAM_BYTES + MAX_TOOLS_BYTES + MAX_SKILL_CHARS),
    "solution": MAX_RESPONSE_BYTES,
}
LARGE_FRAME_BYTES = 1024 * 1024
"""Frames larger than this (only ``solution()`` answers may be) must hold few JSON values."""
MAX_LARGE_FRAME_VALUES = contract.MAX_SOLUTION_STEPS + 16
"""JSON values a large frame may hold: a solution's actions and the envelope."""
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def answer_limit(request: dict) -> int:
    """The largest answer frame the host reads for ``request``, judged by its length prefix.

    A worker that escaped the policy may answer anything: a frame longer than the largest
    legitimate answer to that request is refused before one byte of it is read.
    """
    op = request.get("op")
    kind = request.get("m") if op == "call" else op
    return _ANSWER_LIMITS.get(kind, 0) + _ENVELOPE_BYTES


def few_values(body: bytes) -> bool:
    """Whether a large frame holds at most ``MAX_LARGE_FRAME_VALUES`` JSON values.

    Decoding 16 MiB of ``[[],[],...]`` takes half a gigabyte, so a large frame is counted
    first: every value but the first of a container follows a comma, every container opens
    with a bracket. Counting bytes is fast; only when strings might hold commas or brackets are
    the strings taken out before counting again.
    """

    def count(text: bytes) -> int:
        return text.count(b",") + text.count(b"[") + text.count(b"{")

    if count(body) <= MAX_LARGE_FRAME_VALUES:
        return True
    return count(_JSON_STRING.sub(b'""', body)) <= MAX_LARGE_FRAME_VALUES


_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def encode(message: Any) -> bytes:
    """Encode one message as a frame: 4-byte big-endian length, then UTF-8 JSON."""
    body = _encoder.encode(message).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> Any:
    """Decode a frame body; non-finite numbers are refused (JSON has none, Python accepts them).

    Raises:
        ValueError: the body is not UTF-8 JSON, holds a non-finite number, or is nested too
            deeply for the parser (a ``RecursionError`` is reported as a ``ValueError``).
    """
    try:
        return _decoder.decode(body.decode("utf-8", "surrogatepass"))
    except RecursionError:
        raise ValueError("a frame nested too deeply to parse") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in a frame")


_decoder = json.JSONDecoder(parse_constant=_refuse_constant)  # one, not one per frame


# -- requests (built by the host) ------------------------------------------------------------


def ping_request() -> dict:
    """A round trip that runs no program code."""
    return {"op": "ping"}


def load_request(source: str, filename: str = "<program>") -> dict:
    """Compile ``source`` and run its module code; answered with the class facts."""
    if type(source) is not str or type(filename) is not str:
        raise SpadegymError("a program's source and filename must be str.")
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > contract.MAX_PROGRAM_BYTES:
        raise ProgramError(
            f"the program is {size} bytes; the contract allows at most "
            f"{contract.MAX_PROGRAM_BYTES}. Write a shorter program.",
            "policy",
        )
    return {"op": "load", "source": source, "filename": filename}


def new_request(program: int) -> dict:
    """Create an instance of a loaded program's environment class; answered with its id."""
    return {"op": "new", "p": _id(program, "program")}


def reset_request(instance: int, seed: int | None = None, options: dict | None = None) -> dict:
    """Call an instance's ``reset(seed, options)``.

    Raises:
        SpadegymError: ``seed`` is not an int or None, or ``options`` not a dict of JSON values.
    """
    if seed is not None and type(seed) is not int:
        raise SpadegymError(f"seed={seed!r}: a seed must be an int or None.")
    if options is not None:
        if type(options) is not dict:
            raise SpadegymError(
                f"options of type {type(options).__name__}: options must be a dict or None."
            )
        try:
            options = plain_json(options, "reset() options", limit=MAX_OPTIONS_BYTES)
        except ContractViolation as exc:
            raise SpadegymError(f"{exc} Pass JSON values only.") from None
    return {"op": "reset", "i": _id(instance, "instance"), "seed": seed, "options": options}


def step_request(instance: int, action: str) -> dict:
    """Call an instance's ``step(action)``.

    Raises:
        SpadegymError: the action is not a str.
        ProgramError: the action is longer than the contract allows (kind ``"action"``): a
            player's reply, so it is reported like a failed step, never sent.
    """
    if type(action) is not str:
        raise SpadegymError(f"actions are str replies; got {type(action).__name__}.")
    if len(action) > contract.MAX_ACTION_CHARS:
        raise ProgramError(
            f"the action has {len(action)} characters; actions are at most "
            f"{contract.MAX_ACTION_CHARS} characters. Send a shorter reply.",
            "action",
        )
    return {"op": "step", "i": _id(instance, "instance"), "a": action}


def solution_request(instance: int) -> dict:
    """Call an instance's ``solution()``."""
    return {"op": "call", "i": _id(instance, "instance"), "m": "solution"}


def hint_request(instance: int) -> dict:
    """Call an instance's ``hint()``."""
    return {"op": "call", "i": _id(instance, "instance"), "m": "hint"}


def close_request(instance: int) -> dict:
    """Forget an instance (its finalizers run under the call deadline)."""
    return {"op": "close", "i": _id(instance, "instance")}


def unload_request(program: int) -> dict:
    """Forget a loaded program (the worker still refuses any other program)."""
    return {"op": "unload", "p": _id(program, "program")}


def _id(value: int, what: str) -> int:
    if type(value) is not int:
        raise SpadegymError(f"{what} ids are ints; got {type(value).__name__}.")
    return value


# -- values (checked by both sides) ----------------------------------------------------------


class ContractViolation(Exception):
    """A value a program returned breaks the contract; the message is for the designer."""


def _over(where: str, budget: list[int]) -> None:
    raise ContractViolation(
        f"{where} is larger than {budget[1]} bytes as JSON; the limit is {budget[1]}."
    )


def plain_json(value: Any, where: str, depth: int = 0, limit: int | None = None) -> Any:
    """Copy ``value`` into plain JSON types, checking exact types (no subclasses, no NaN).

    Args:
        value: what the program returned.
        where: how to name the value in a message, e.g. ``"step() info"``.
        depth: current nesting depth.
        limit: a cap on the value's size as JSON, enforced while walking (a structure of
            shared parts can stand for billions of leaves: it is refused after ``limit`` of
            them, not expanded first).

    Raises:
        ContractViolation: with a sentence naming the offending value.
    """
    budget = [limit, limit] if limit is not None else None  # [left, limit]
    return _plain(value, where, depth, budget)


def _plain(value: Any, where: str, depth: int, budget: list[int] | None) -> Any:
    # The budget is a lower bound of the JSON size spent so far (scalars count one byte).
    if depth > MAX_JSON_DEPTH:
        raise ContractViolation(f"{where} is nested more than {MAX_JSON_DEPTH} levels deep.")
    kind = type(value)
    if value is None or kind is bool or kind is int:
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                _over(where, budget)
        return value
    if kind is str:
        if budget is not None:
            budget[0] -= len(value) + 2
            if budget[0] < 0:
                _over(where, budget)
        return value
    if kind is float:
        if not math.isfinite(value):
            raise ContractViolation(f"{where} holds a non-finite number ({value}).")
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                _over(where, budget)
        return value
    if kind is list or kind is tuple:
        if budget is not None:
            budget[0] -= 2 + max(0, len(value) - 1)  # brackets and commas
            if budget[0] < 0:
                _over(where, budget)
        return [_plain(item, where, depth + 1, budget) for item in value]
    if kind is dict:
        if budget is not None:
            budget[0] -= 1 + 2 * len(value) if value else 2  # braces, colons, commas
            if budget[0] < 0:
                _over(where, budget)
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise ContractViolation(
                    f"{where} has a key of type {type(key).__name__}; keys must be strings."
                )
            if budget is not None:
                budget[0] -= len(key) + 2
                if budget[0] < 0:
                    _over(where, budget)
            out[key] = _plain(item, where, depth + 1, budget)
        return out
    raise ContractViolation(
        f"{where} holds a {kind.__name__}; only str, int, float, bool, None, lists and dicts "
        "are allowed."
    )


def check_observation(obs: Any, where: str) -> str:
    """Check an observation: an exact ``str`` of at most the contract's length."""
    if type(obs) is not str:
        raise ContractViolation(
            f"{where} returned an observation of type {type(obs).__name__}; it must be a str."
        )
    if len(obs) > contract.MAX_OBSERVATION_CHARS:
        raise ContractViolation(
            f"{where} returned an observation of {len(obs)} characters; the limit is "
            f"{contract.MAX_OBSERVATION_CHARS}. Show less state."
        )
    return obs


def check_info(info: Any, where: str) -> dict:
    """Check an info dict: str keys, JSON values, at most the contract's encoded size."""
    if type(info) is not dict:
        raise ContractViolation(
            f"{where} returned info of type {type(info).__name__}; "
            "it must be a dict (use {} when there is nothing to say)."
        )
    if not info:
        return {}
    clean = plain_json(info, f"{where} info", limit=contract.MAX_INFO_BYTES)
    size = len(_encoder.encode(clean).encode("utf-8", "surrogatepass"))
    if size > contract.MAX_INFO_BYTES:
        raise ContractViolation(
            f"{where} returned info of {size} bytes as JSON; the limit is "
            f"{contract.MAX_INFO_BYTES}."
        )
    return clean


def check_reward(reward: Any, where: str) -> float:
    """Check a reward: an exact int or float, finite, in the contract's range."""
    if type(reward) not in (int, float):
        raise ContractViolation(
            f"{where} returned a reward of type {type(reward).__name__}; it must be a float."
        )
    reward = float(reward)
    if not math.isfinite(reward) or not contract.REWARD_MIN <= reward <= contract.REWARD_MAX:
        raise ContractViolation(
            f"{where} returned reward {reward}; rewards must be finite "
            f"numbers in [{contract.REWARD_MIN:g}, {contract.REWARD_MAX:g}]."
        )
    return reward


def check_reset(value: Any) -> list:
    """Check what ``reset`` returned and give it back as ``[obs, info]``."""
    if type(value) not in (tuple, list) or len(value) != 2:
        raise ContractViolation("reset() must return a pair (observation, info).")
    obs = check_observation(value[0], "reset()")
    if not obs.strip():
        raise ContractViolation(
            "reset() returned an empty observation; it must tell the player "
            "the goal, the state and the action format."
        )
    return [obs, check_info(value[1], "reset()")]


def check_step(value: Any) -> list:
    """Check what ``step`` returned and give it back as ``[obs, reward, term, trunc, info]``."""
    if type(value) not in (tuple, list) or len(value) != 5:
        raise ContractViolation(
            "step() must return a 5-tuple (observation, reward, terminated, truncated, info)."
        )
    obs, reward, terminated, truncated, info = value
    obs = check_observation(obs, "step()")
    reward = check_reward(reward, "step()")
    for name, flag in (("terminated", terminated), ("truncated", truncated)):
        if type(flag) is not bool:
            raise ContractViolation(
                f"step() returned {name} of type {type(flag).__name__}; it must be True or False."
            )
    return [obs, reward, terminated, truncated, check_info(info, "step()")]


def check_solution(value: Any) -> list[str]:
    """Check what ``solution`` returned: a non-empty list of str actions."""
    if type(value) not in (list, tuple):
        raise ContractViolation("solution() must return a list of str actions.")
    if not value:
        raise ContractViolation(
            "solution() returned an empty list; it must return the actions "
            "that win the current instance."
        )
    if len(value) > contract.MAX_SOLUTION_STEPS:
        raise ContractViolation(
            f"solution() returned {len(value)} actions; the limit is {contract.MAX_SOLUTION_STEPS}."
        )
    for action in value:
        if type(action) is not str:
            raise ContractViolation(
                f"solution() must return a list of str actions; it holds a {type(action).__name__}."
            )
        if len(action) > contract.MAX_ACTION_CHARS:
            raise ContractViolation(
                f"solution() holds an action longer than {contract.MAX_ACTION_CHARS} characters."
            )
    return list(value)


def check_hint(value: Any) -> str:
    """Check what ``hint`` returned: a str (its length is judged by the validator)."""
    if type(value) is not str:
        raise ContractViolation(f"hint() returned a {type(value).__name__}; it must be a str.")
    if len(value) > contract.MAX_OBSERVATION_CHARS:
        raise ContractViolation(
            f"hint() returned more than {contract.MAX_OBSERVATION_CHARS} characters."
        )
    return value
