"""Does a hint give the answer away? The answer as a token of the hint, however it is written.

Hints and answers are compared after normalisation: NFKC (full-width and other compatibility
forms), any script's decimal digits as ASCII digits, case folded, dashes unified. Text is then
read as tokens (runs of letters and digits; a ``-`` right before a number that follows no
letter or digit is its sign). The answer leaks when consecutive tokens of the hint, apart by at
most two characters of space or punctuation, spell exactly the answer's tokens run together:
``1 2 3``, ``1-2-3`` and ``１２３`` give away ``123``, while ``7`` is not found in ``17`` or
``seventy`` and ``-1`` is not ``1``. This matters most for one- and two-character answers,
which turn up as parts of other words and numbers all the time.

A designer paid for hints that help can also spell the answer out in other ways, so the hint
is read a few more ways before the comparison: number words become digits ("sixty-six" is
``66``, "one hundred and five thousand" is ``105000``, up to a million; "six six zero four" is
``6 6 0 4``), separators between single characters may be wider (``6 | 6 | 0 | 4``), single
characters may stand among other words ("6, then 6, then 0, then 4", for answers of three
or more characters), and the answer may be written backwards (``4066``, "olleh").
"""

from __future__ import annotations

import re
import unicodedata

_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_TOKEN = re.compile(r"[^\W_]+")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212\ufe63\uff0d", "-"))
_MAX_GAP = 3
"""Characters of space or punctuation allowed between the tokens that spell an answer
(``6 | 6`` has three)."""

MIN_SPREAD_CHARS = 3
"""Answers at least this long are also looked for one character per token among other words,
and backwards (shorter ones turn up that way by chance)."""

_UNITS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * n
    for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_WORD = r"\b(?:" + "|".join([*_TENS, *_UNITS, *_SCALES, "and", "a"]) + r")\b"
_NUMBER_WORDS = re.compile(_WORD + r"(?:[\s-]+" + _WORD + r")*")

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


def words_to_numbers(text: str) -> str:
    """Number words in ``text`` as digits: "forty-two" -> ``42``, "six six" -> ``6 6``."""
    out: list[str] = []
    last = 0
    for run in _NUMBER_WORDS.finditer(text):
        words = [w for w in re.split(r"[\s-]+", run.group().strip()) if w]
        while words and words[-1] in ("and", "a"):
            words.pop()
        if not words or all(w in ("and", "a") for w in words):
            continue
        value = _spoken_number(words)
        if value is None:
            continue
        end = run.start() + len(run.group().rstrip())
        gap = " " if text[end : end + 1].isalnum() else ""
        out.append(text[last : run.start()] + value + gap)
        last = end
    return "".join(out) + text[last:]


def _spoken_number(words: list[str]) -> str | None:
    """A run of number words as digits; single digits said one by one stay apart."""
    if words[0] in ("and", "a") and len(words) == 1:
        return None
    if len(words) > 1 and all(w in _UNITS and _UNITS[w] < 10 for w in words):
        return " ".join(str(_UNITS[w]) for w in words)
    total = current = 0
    seen = False
    for k, word in enumerate(words):
        if word == "a" and not (k + 1 < len(words) and words[k + 1] in _SCALES):
            continue  # "a" is one only in "a hundred", "a thousand"
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "a":
            current += 1
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in ("thousand", "million"):
            total += max(current, 1) * _SCALES[word]
            current = 0
        else:
            continue
        seen = True
    return str(total + current) if seen else None


def contains_answer(hint: str, answer: str) -> bool:
    """Whether ``answer`` appears in ``hint`` as a run of whole tokens, however spelled.

    See the module: number words, wider separators, one character per token among other
    words, and backwards.
    """
    key = "".join(t for t, _, _ in tokens(normalise(answer)))
    if not key:
        return False
    text = normalise(hint)
    # "one" and "two" are everyday words: number words count for answers of 2+ characters.
    readings = [text, words_to_numbers(text)] if len(key) >= 2 else [text]
    for reading in readings:
        found = tokens(reading)
        if _spelled(found, key):
            return True
        if (len(key) >= MIN_SPREAD_CHARS and not key.isalpha()) or len(key) >= 5:
            singles = [t for t, _, _ in found if len(t) == 1]
            joined = "".join(singles)
            if key in joined or key[::-1] in joined:
                return True
        if len(key) >= MIN_SPREAD_CHARS and _spelled(found, key[::-1]):
            return True
    return False


def _spelled(found: list[tuple[str, int, int]], key: str) -> bool:
    """Whether consecutive tokens of ``found``, close together, spell exactly ``key``."""
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
