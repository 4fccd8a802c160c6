"""Plain JSON values: the exact-type checks of what a program returns, and their wire form.

A worker converts whatever a program returned into plain JSON values with exact type checks (a
``str`` subclass could run program code when encoded), capping sizes while it walks; the host
runs the same checks again on what it decodes, trusting nothing. ``json_bytes`` is the one JSON
form of the wire (``protocol`` frames it), so a size checked here is the size sent. Imported by
the worker: the standard library and ``spadegym.contract`` only.
"""

from __future__ import annotations

import json
import math
from typing import Any

from spadegym import contract

MAX_JSON_DEPTH = 32
"""Deepest nesting of a value a program returns."""

_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def json_bytes(value: Any) -> bytes:
    """``value`` as the wire's JSON: UTF-8 (lone surrogates kept), compact, no NaN.

    Raises:
        ValueError: a non-finite number, or a circular structure.
        TypeError: a value JSON has no form for.
    """
    return _encoder.encode(value).encode("utf-8", "surrogatepass")


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
    size = len(json_bytes(clean))
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
