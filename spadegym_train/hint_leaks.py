r"""Behavioural hint leaks: a hint leaks when it lets a shortcut solver win that loses without it.

The string check (``spadegym.validation.leak.hint_leak``, the one a program's ``hint()`` gets)
finds the answer however it is spelled. A hint can also point at the answer without spelling
it: "Choose the second word in the list." Here the hint is judged by what it does: the cheap
shortcut solvers of ``spadegym.validation.shortcuts`` that copy from what they read (the
first, last or n-th number, the first or last listed option) are played on the hint as if it
were the observation, and a pointer-follower takes the observation's listed option the hint
names by position ("the second word", "option 3", "the last one"). If one of them gives the
instance's answer with the hint and not without it, the hint is a leak: a solver could win by
obeying it without playing the game.

"Wins" is judged against the instance's ``solution()``: the answer of its first reply and its
final answer (the content of ``\boxed{}`` or ``<answer>``, else the bare reply), compared after
the leak check's normalisation. The program is not stepped: the hinter runs before the play,
outside the sandbox, and a shortcut's first reply is all a one-answer game reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spadegym.validation.leak import final_answer, normalise, tokens
from spadegym.validation.shortcuts import (
    BARE,
    ListedOption,
    NthNumber,
    Play,
    Shortcut,
    listed_options,
    numbers,
    shortcut_family,
)

_ORDINALS = {
    word: k
    for k, word in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth".split(), 1
    )
}
_NOUNS = (
    r"(?:words?|options?|choices?|items?|ones?|answers?|entry|entries|candidates?|elements?|"
    r"names?|numbers?|cards?|cups?|boxe?s?|doors?|terms?|values?|picks?|positions?|slots?|"
    r"colou?rs?|animals?|letters? in the list)"
)
_ORDINAL = re.compile(
    r"\b(" + "|".join([*_ORDINALS, "last"]) + r"|\d{1,2}(?:st|nd|rd|th))\b"
    r"(?:\s+(?:listed|shown|given|named))?\s+" + _NOUNS + r"\b"
)
_INDEXED = re.compile(
    r"\b(?:options?|choices?|items?|answers?|entry|candidates?|positions?|slots?|number|no\.?)"
    r"\s*#?\s*\(?([a-j]|\d{1,2})\)?(?![\w])"
)


def pointed_index(hint: str) -> int | None:
    """The 0-based position a hint names ("the second word", "option 3", "option C").

    -1 for "the last one"; ``None`` when it names none.
    """
    text = normalise(hint)
    match = _ORDINAL.search(text)
    if match:
        word = match.group(1)
        if word == "last":
            return -1
        if word in _ORDINALS:
            return _ORDINALS[word] - 1
        return int(re.match(r"\d+", word).group()) - 1  # type: ignore[union-attr]
    match = _INDEXED.search(text)
    if match:
        mark = match.group(1)
        return int(mark) - 1 if mark.isdigit() else ord(mark) - ord("a")
    return None


def pointed_option(hint: str, observation: str) -> str | None:
    """The listed option (or number) of ``observation`` that ``hint`` names by position."""
    index = pointed_index(hint)
    options = listed_options(observation) or numbers(observation)
    if index is None or not options or not -len(options) <= index < len(options):
        return None
    return options[index]


def copying_shortcuts() -> list[Shortcut]:
    """The deterministic shortcuts that copy what they read (numbers, listed options)."""
    return [
        s
        for s in shortcut_family(BARE)
        if isinstance(s, NthNumber) or (isinstance(s, ListedOption) and s.which != "in turn")
    ]


def _key(text: str) -> str:
    return "".join(t for t, _, _ in tokens(normalise(text)))


def answer_keys(solution: Sequence[str] | None) -> set[str]:
    """The normalised answers a shortcut must give to win: the first reply's and the final."""
    if not solution:
        return set()
    keys = {_key(final_answer(list(solution)) or solution[-1])}
    keys.add(_key(final_answer([solution[0]]) or solution[0]))
    return {k for k in keys if k}


def _choice(shortcut: Shortcut, observation: str) -> str:
    return shortcut.choose(Play(observation)) or ""


def behavioural_leak(hint: str, observation: str, solution: Sequence[str] | None) -> str | None:
    """The shortcut that wins with ``hint`` and loses without it, in words, or ``None``.

    Args:
        hint: the hint text.
        observation: the instance's first observation (what the solver sees).
        solution: the instance's winning replies.
    """
    keys = answer_keys(solution)
    if not keys:
        return None
    choice = pointed_option(hint, observation)
    if choice is not None and _key(choice) in keys:
        return f"the option the hint points at ({choice[:40]!r})"
    copied = {_key(c) for c in numbers(hint) + listed_options(hint)}
    for shortcut in copying_shortcuts():
        if _key(_choice(shortcut, observation)) in keys:
            continue  # wins without the hint: that is the floor's business, not the hint's
        choice = _key(_choice(shortcut, hint))
        if choice in keys and choice in copied:  # copied from the hint, not a default
            return f"{shortcut.name}, read from the hint"
    return None
