"""The wire between host and worker: length-prefixed JSON frames, and the contract's value checks.

Both sides import this module. The worker converts whatever a program returned into plain
JSON values with exact type checks (a ``str`` subclass could run program code when encoded);
the host decodes the frame and runs the same value checks again, trusting nothing. Nothing is
ever unpickled: a worker that escaped the policy must not be able to run code in the host.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

from spadegym import contract

HEADER = struct.Struct(">I")
MAX_REQUEST_BYTES = 4 * contract.MAX_ACTION_CHARS + 8 * contract.MAX_PROGRAM_BYTES
"""Largest frame the worker accepts (a program, or a batch of long actions)."""
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Largest frame the host accepts from a worker; anything bigger kills the worker."""
MAX_JSON_DEPTH = 32

_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def encode(message: Any) -> bytes:
    """Encode one message as a frame: 4-byte big-endian length, then UTF-8 JSON."""
    body = _encoder.encode(message).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> Any:
    """Decode a frame body; non-finite numbers are refused (JSON has none, Python accepts them)."""
    return json.loads(body.decode("utf-8", "surrogatepass"), parse_constant=_refuse_constant)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in a frame")


class ContractViolation(Exception):
    """A value a program returned breaks the contract; the message is for the designer."""


def plain_json(value: Any, where: str, depth: int = 0) -> Any:
    """Copy ``value`` into plain JSON types, checking exact types (no subclasses, no NaN).

    Args:
        value: what the program returned.
        where: how to name the value in a message, e.g. ``"step() info"``.
        depth: current nesting depth.

    Raises:
        ContractViolation: with a sentence naming the offending value.
    """
    if depth > MAX_JSON_DEPTH:
        raise ContractViolation(f"{where} is nested more than {MAX_JSON_DEPTH} levels deep.")
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is int:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise ContractViolation(f"{where} holds a non-finite number ({value}).")
        return value
    if kind is list or kind is tuple:
        return [plain_json(item, where, depth + 1) for item in value]
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise ContractViolation(
                    f"{where} has a key of type {type(key).__name__}; keys must be strings."
                )
            out[key] = plain_json(item, where, depth + 1)
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
    clean = plain_json(info, f"{where} info")
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
