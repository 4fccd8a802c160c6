"""Does a hint give the answer away? The answer as a token of the hint, however it is written.

Hints and answers are compared after normalisation: NFKC (full-width and other compatibility
forms), any script's decimal digits as ASCII digits, case folded, dashes unified. Text is then
read as tokens (runs of letters and digits; a ``-`` right before a number that follows no
letter or digit is its sign). The answer leaks when consecutive tokens of the hint, apart by at
most two characters of space or punctuation, spell exactly the answer's tokens run together:
``1 2 3``, ``1-2-3`` and ``１２３`` give away ``123``, while ``7`` is not found in ``17`` or
``seventy`` and ``-1`` is not ``1``. This matters most for one- and two-character answers,
which turn up as parts of other words and numbers all the time.
"""

from __future__ import annotations

import re
import unicodedata

_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_TOKEN = re.compile(r"[^\W_]+")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212\ufe63\uff0d", "-"))
_MAX_GAP = 2
"""Characters of space or punctuation allowed between the tokens that spell an answer."""

MIN_REPLY_CHARS = 8
"""A whole solution reply at least this long found in the hint is a leak too."""


def normalise(text: str) -> str:
    """NFKC, ASCII digits for every script's digits, case folded, one kind of dash."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).casefold()
    if text.isascii():
        return text
    return "".join(
        str(unicodedata.decimal(c)) if not c.isascii() and c.isdecimal() else c for c in text
    )


def tokens(text: str) -> list[tuple[str, int, int]]:
    """The tokens of normalised ``text`` as (token, start, end); numbers keep a leading sign."""
    out = []
    for match in _TOKEN.finditer(text):
        start, word = match.start(), match.group()
        signed = (
            start > 0
            and text[start - 1] == "-"
            and word[0].isdigit()
            and (start < 2 or not text[start - 2].isalnum())
        )
        out.append(("-" + word if signed else word, start - signed, match.end()))
    return out


def contains_answer(hint: str, answer: str) -> bool:
    """Whether ``answer`` appears in ``hint`` as a run of whole tokens (see the module)."""
    key = "".join(t for t, _, _ in tokens(normalise(answer)))
    if not key:
        return False
    found = tokens(normalise(hint))
    for i, (first, _, end) in enumerate(found):
        if not key.startswith(first):
            continue
        spelled = first
        for token, start, stop in found[i + 1 :]:
            if spelled == key or start - end > _MAX_GAP:
                break
            if not key.startswith(spelled + token):
                break
            spelled, end = spelled + token, stop
        if spelled == key:
            return True
    return False


def final_answer(solution: list[str]) -> str:
    """The content of the last boxed answer or ``<answer>`` block of a solution, or ``""``."""
    last = ""
    for reply in solution:
        found = [(m.start(), m.group(1)) for m in _BOXED.finditer(reply)]
        found += [(m.start(), m.group(1)) for m in _ANSWER.finditer(reply)]
        if found:
            last = max(found)[1]
    return last.strip()


def hint_leak(hint: str, solution: list[str] | None) -> str | None:
    """What of ``solution`` the hint gives away (a phrase for a message), or ``None``.

    Args:
        hint: the hint text.
        solution: the winning replies of the instance the hint is for.
    """
    if not solution:
        return None
    folded = " ".join(normalise(hint).split())
    for reply in solution:
        text = " ".join(normalise(reply).split())
        if len(text) >= MIN_REPLY_CHARS and text in folded:
            return f"the solution reply {text[:60]!r}"
    final = final_answer(solution)
    if final and contains_answer(hint, final):
        return f"the final answer {final[:60]!r}"
    return None
