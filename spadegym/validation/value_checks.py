"""The contract's values at run time, over every transcript the battery played.

Any step that raised or returned a value outside the contract, on any reply any check sent
(shortcut solvers included), fails here: a path only one probe reached is still a path.

The worker already checks types, lengths, reward ranges and JSON-ness of each value. What it
cannot know is checked here, on the episodes the other checks played (no extra calls):
observations lie in the Gymnasium observation space (printable text), infos leave the keys
that spadegym's wrappers write alone, and a two-player game's ``info["outcome"]`` is zero-sum.
A character the player sent is not held against the program when it is echoed back (the
robustness check sends control characters on purpose).
"""

from __future__ import annotations

from typing import Any

from spadegym import contract
from spadegym.env import observation_space
from spadegym.validation.context import Context, seed_name


def check_values(ctx: Context) -> str | None:
    """Observations in the observation space, no reserved info keys, zero-sum outcomes."""
    space = observation_space()
    watched = set(contract.RESERVED_INFO_KEYS) | ({"outcome"} if ctx.two_player else set())
    for episode in ctx.played:
        if episode.error is not None and episode.error.kind in _PROGRAM_FAULTS:
            return (
                f"{ctx.episode_failure(episode)}. step() must never raise and must return "
                "values within the contract for any reply."
            )
        rows = episode.transcript
        for turn in range(0 if episode.first_observation else 1, len(rows) + 1):
            observation, info = (
                (episode.first_observation, episode.first_info)
                if turn == 0
                else (rows[turn - 1][0], rows[turn - 1][4])
            )
            if _plainly_in_space(observation) and (not info or watched.isdisjoint(info)):
                continue  # the usual case, decided fast and without building a message
            sent = [row[5] for row in rows[:turn]]
            problem = (
                _observation_problem(space, observation, sent)
                or _reserved_problem(info)
                or (_outcome_problem(info) if ctx.two_player else None)
            )
            if problem:
                where = f"step() on turn {turn} (action {_show(sent[-1])})" if turn else "reset()"
                return f"{seed_name(episode.seed)}: {where} {problem}"
    return None


_PROGRAM_FAULTS = ("exception", "contract")
"""Failures of the program itself on a reply the battery sent (the worker checks the values of
every step: types, lengths, finite rewards in range, JSON infos)."""


def _plainly_in_space(observation: str) -> bool:
    """The observation space's rule (printable, or newline, return, tab), at C speed.

    ``PrintableText.contains`` tests multi-line text one character at a time in Python, which
    over a validation's thousand observations costs milliseconds; this is only a fast path,
    and the space has the last word on anything it does not accept.
    """
    return len(observation) <= contract.MAX_OBSERVATION_CHARS and (
        observation.isprintable()
        or observation.replace("\n", "").replace("\r", "").replace("\t", "").isprintable()
    )


def _observation_problem(space: Any, observation: str, sent: list[str]) -> str | None:
    """Why ``observation`` is outside the space, counting the replies ``sent`` as echoed."""
    if space.contains(observation):
        return None
    echoed = set().union(*sent)
    bad = next(
        (c for c in observation if not (c.isprintable() or c in "\n\r\t" or c in echoed)),
        None,
    )
    if bad is None:
        return None
    what = f"the character {bad!r} (U+{ord(bad):04X})"
    return (
        f"returned an observation holding {what}, which is outside the observation space "
        "(printable text, newlines and tabs). Leave out control characters and escape codes."
    )


def _reserved_problem(info: dict[str, Any]) -> str | None:
    taken = sorted(set(info) & set(contract.RESERVED_INFO_KEYS))
    if not taken:
        return None
    return (
        f"put {', '.join(repr(k) for k in taken)} in info; spadegym's wrappers write the keys "
        f"{', '.join(contract.RESERVED_INFO_KEYS)} themselves, so a program must not. Use "
        "another name."
    )


def _outcome_problem(info: dict[str, Any]) -> str | None:
    if "outcome" not in info:
        return None
    outcome = info["outcome"]
    if (
        isinstance(outcome, list)
        and len(outcome) == 2
        and all(type(x) in (int, float) for x in outcome)
        and abs(outcome[0] + outcome[1]) <= 1e-9
        and all(contract.REWARD_MIN <= x <= contract.REWARD_MAX for x in outcome)
    ):
        return None
    return (
        f"gave info['outcome'] = {outcome!r}; a two-player game is zero-sum: the outcome is "
        f"[r0, r1] with r0 + r1 == 0, each in [{contract.REWARD_MIN:g}, "
        f"{contract.REWARD_MAX:g}] (for example [1, -1], or [0, 0] for a draw)."
    )


def _show(action: Any, limit: int = 40) -> str:
    text = action if isinstance(action, str) else str(action)
    return repr(text if len(text) <= limit else text[:limit] + "...")
