r"""Shortcut solvers: cheap policies that do not play the game, and the chance floor they set.

A designer under reinforcement-learning pressure is an optimiser pointed at the validator, so
an environment must not be winnable without playing it: by a fixed word, by copying a number
or a listed option from the observation, by echoing the observation back, or by a long reply.
Each shortcut here is a small named policy that reads only the current observation (and its
own earlier replies); none of them can reason about the game.

Their best mean outcome over many instances is the environment's **chance floor**: what a
solver earns without skill. A multiple-choice game where a random option wins a third of the
time is a fine game with a floor near 1/3 (0.5 with a second try worth half); a game that a
shortcut wins nearly every time is not a game. Every win rate, reward and benchmark is read
against the floor (``spadegym.contract.chance_adjusted``).

Shortcuts answer in the program's own answer format (``reply_template``, taken from its
``solution()``: ``\boxed{...}``, ``<answer>...</answer>`` or bare), and the fixed words and the
first and last options are also sent bare, since a program may accept unformatted replies.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

TEMPLATE_SLOT = "{}"
"""Where the answer goes in a reply template (``reply_template``)."""

BARE = TEMPLATE_SLOT
"""The template of a bare reply."""

FIXED_WORDS: tuple[str, ...] = ("yes", "no", "true", "false", "0", "1", "A", "a")
"""Replies that carry no thought: agreement, truth values, small numbers, an option letter
(later letters are the "each listed option in turn" shortcut's business)."""

NUMBER_POSITIONS = 4
"""Number shortcuts copy the 1st..Nth number of the observation (and the last one)."""

LONG_REPLY_CHARS: tuple[int, ...] = (4096, 12288)
"""Lengths of the long replies: twice and six times the battery's 2,000-character filler."""

MAX_OPTION_CHARS = 40
"""A listed option is at most this long (longer pieces are prose, not choices)."""

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
_QUOTED = re.compile(r"""["'\u201c\u2018]([^"'\u201d\u2019\n]{1,40})["'\u201d\u2019]""")
_ITEM_LINE = re.compile(r"^\s*(?:[-*\u2022]|\(?[A-Za-z0-9]{1,2}[.):])\s+(.{1,40})$", re.M)
_KEYWORD = re.compile(
    r"\b(?:options?|choices?|candidates?|choose(?: from)?|pick(?: from)?|one of|among|from)\b"
    r"\s*(?:are|is)?\s*[:\-]?\s*",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.?!;:])\s+|\n")
_SPLIT = re.compile(r"\s*(?:,|\||/|\bor\b)\s*")
_TRAIL = " .?!;:\"'()[]{}"
_BOXED = re.compile(r"\\boxed\{")
_ANSWER = re.compile(r"<answer>", re.I)


def reply_template(solution: Sequence[str] | None) -> str:
    r"""The program's answer format, from its solution: ``\boxed{}``, ``<answer>`` or bare.

    The last reply of ``solution()`` is the answer; the template keeps its wrapper and puts
    ``{}`` where the answer goes.
    """
    last = solution[-1] if solution else ""
    if _BOXED.search(last):
        return "\\boxed{" + TEMPLATE_SLOT + "}"
    if _ANSWER.search(last):
        return "<answer>" + TEMPLATE_SLOT + "</answer>"
    return BARE


def numbers(observation: str) -> list[str]:
    """The numbers of an observation, in order, as written (``-3``, ``4.5``)."""
    return _NUMBER.findall(observation)


def _clean(piece: str) -> str:
    return piece.strip(_TRAIL).strip()


def _as_list(text: str) -> list[str]:
    items = [_clean(p) for p in _SPLIT.split(text)]
    if len(items) >= 3 and all(len(p.split()) == 1 for p in items[1:-1]):
        # "Cups 1, 2, 3, 4 on the table": the ends carry words of the sentence around them.
        items[0] = items[0].split()[-1] if items[0] else ""
        items[-1] = items[-1].split()[0] if items[-1] else ""
    items = [p for p in items if p and p != "..." and len(p) <= MAX_OPTION_CHARS]
    return items if len(items) >= 2 and all(len(p.split()) <= 4 for p in items) else []


def listed_options(observation: str) -> list[str]:
    """The choices an observation lists, in order (the list most likely to hold the answer).

    Tried in order: a list introduced by a word such as "choices", "options", "candidates" or
    "one of" (the last such); lines that are items (``- x``, ``A) x``, ``1. x``); the last
    sentence piece that is a comma list of short items ("piano, chisel, harp"); quoted strings.
    """
    keyed: list[str] = []
    for match in _KEYWORD.finditer(observation):
        rest = observation[match.end() :]
        sentence = _SENTENCE.split(rest, maxsplit=1)[0]
        found = _as_list(sentence)
        if found:
            keyed = found
    if keyed:
        return _unique(keyed)
    items = [_clean(m.group(1)) for m in _ITEM_LINE.finditer(observation)]
    items = [i for i in items if i]
    if len(items) >= 2:
        return _unique(items)
    pieces = [p for p in re.split(r"[.?!;:\n]\s", observation + " ") if "," in p]
    for piece in reversed(pieces):
        found = _as_list(piece)
        if found:
            return _unique(found)
    return _unique(_clean(q) for q in _QUOTED.findall(observation) if _clean(q))


def _unique(items: Sequence[str] | object) -> list[str]:
    return list(dict.fromkeys(items))  # type: ignore[arg-type]


@dataclass
class Play:
    """What a shortcut sees on its turn: the observation, its own replies so far, a generator.

    Attributes:
        observation: the current observation (the first one on turn 0).
        first: the episode's first observation.
        sent: the replies this shortcut sent in this episode, in order.
        rng: the episode's generator (seeded, so a shortcut's play is reproducible).
        template: the program's answer format (``reply_template``).
    """

    observation: str
    sent: list[str] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    template: str = BARE
    first: str = ""

    @property
    def turn(self) -> int:
        """Replies sent so far (0 on the first turn)."""
        return len(self.sent)

    def options(self) -> list[str]:
        """The options on show: listed ones, else numbers; the first observation's if none.

        A game often lists its choices once and answers a wrong guess with "Try again."
        """
        for text in (self.observation, self.first):
            found = listed_options(text) or numbers(text)
            if found:
                return found
        return []


@dataclass(frozen=True)
class Shortcut:
    """A policy that does not play the game. Subclasses say how a reply is chosen.

    Attributes:
        name: what the shortcut does, in words a designer understands ("the fixed reply 'yes'").
        bare: send the reply without the program's answer format.
        max_turns: turns it plays at most (long replies stop early: their cost is the text).
    """

    name: str
    bare: bool = False
    max_turns: int | None = None

    def choose(self, play: Play) -> str | None:
        """The answer to wrap in the template, or ``None`` for nothing to say (an empty box)."""
        raise NotImplementedError

    def reply(self, play: Play) -> str:
        """The whole reply for this turn."""
        answer = self.choose(play)
        if answer is None:
            answer = ""
        return answer if self.bare else play.template.replace(TEMPLATE_SLOT, answer, 1)


@dataclass(frozen=True)
class FixedReply(Shortcut):
    """The same word every turn."""

    word: str = ""

    def choose(self, play: Play) -> str | None:
        """See ``Shortcut.choose``."""
        return self.word


@dataclass(frozen=True)
class NthNumber(Shortcut):
    """The observation's number at ``position`` (0-based; -1 is the last), every turn."""

    position: int = 0

    def choose(self, play: Play) -> str | None:
        """See ``Shortcut.choose``."""
        found = numbers(play.observation)
        try:
            return found[self.position]
        except IndexError:
            return found[-1] if found else "0"


@dataclass(frozen=True)
class ListedOption(Shortcut):
    """A listed option: the first, the last, or the next one in turn."""

    which: str = "first"

    def choose(self, play: Play) -> str | None:
        """See ``Shortcut.choose``."""
        options = play.options()
        if not options:
            return None
        if self.which == "last":
            return options[-1]
        if self.which == "in turn":
            return options[play.turn % len(options)]
        return options[0]


@dataclass(frozen=True)
class RandomOption(Shortcut):
    """A uniformly random listed option, never one already sent in the episode (a fair guesser).

    This is the floor a multiple-choice game is read against: what guessing earns.
    """

    def choose(self, play: Play) -> str | None:
        """See ``Shortcut.choose``."""
        options = play.options()
        tried = set(play.sent)
        fresh = [o for o in options if play.template.replace(TEMPLATE_SLOT, o, 1) not in tried]
        fresh = [o for o in fresh if o not in tried]
        pool = fresh or options
        return play.rng.choice(pool) if pool else None


@dataclass(frozen=True)
class Echo(Shortcut):
    """The observation itself, sent back."""

    def choose(self, play: Play) -> str | None:
        """See ``Shortcut.choose``."""
        return play.observation


@dataclass(frozen=True)
class RepeatFirst(Shortcut):
    """The first listed option (or number) on the first turn, then that same reply again."""

    def choose(self, play: Play) -> str | None:
        """See ``Shortcut.choose``."""
        if play.sent:
            return play.sent[0]
        options = play.options()
        return options[0] if options else None

    def reply(self, play: Play) -> str:
        """The first reply again, word for word, after the first turn."""
        return play.sent[0] if play.sent else super().reply(play)


_LONG_WORDS = (
    "consider the puzzle carefully each clue narrows the answer and the pattern repeats so "
    "the rule holds for every case checked here which means the final choice follows"
).split()


@dataclass(frozen=True)
class LongReply(Shortcut):
    """A long reply of plausible words (with numbers in it, or not) that says nothing."""

    chars: int = 4096
    digits: bool = False

    def choose(self, play: Play) -> str | None:
        """See ``Shortcut.choose``."""
        return long_text(self.chars, self.digits)


def long_text(chars: int, digits: bool) -> str:
    """``chars`` characters of words with no answer; every eighth word a number if ``digits``."""
    rng = random.Random(f"long-{chars}-{digits}")
    words: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(_LONG_WORDS)
        if digits and len(words) % 8 == 7:
            word = str(rng.randrange(100))
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:chars]


def shortcut_family(template: str = BARE, max_turns: int = 4) -> list[Shortcut]:
    """Every shortcut validation plays, for a program whose answers look like ``template``.

    Args:
        template: the program's answer format (``reply_template``).
        max_turns: turns each shortcut plays at most: a reply that does not read the game
            has nothing new to say later, and a cycler has tried four options by then.
    """
    formats = [(False, template)] + ([(True, BARE)] if template != BARE else [])
    family: list[Shortcut] = []
    for bare, shown in formats:  # bare too: a program may accept unformatted replies
        suffix = " (bare)" if bare else ""
        family += [
            FixedReply(f"the fixed reply {shown.replace(TEMPLATE_SLOT, w)!r}", bare, max_turns, w)
            for w in FIXED_WORDS
        ]
        family += [
            ListedOption(f"the first listed option{suffix}", bare, max_turns, "first"),
            NthNumber(f"the first number of the observation{suffix}", bare, max_turns, 0),
        ]
    family += [
        ListedOption("the last listed option", False, max_turns, "last"),
        NthNumber("the last number of the observation", False, max_turns, -1),
        RandomOption("a random listed option", False, max_turns),
    ]
    if template != BARE:
        family.append(FixedReply(f"an empty {template.replace(TEMPLATE_SLOT, '')}", False, 2, ""))
    family += [
        NthNumber(f"number {k + 1} of the observation", False, max_turns, k)
        for k in range(1, NUMBER_POSITIONS)
    ]
    family += [
        ListedOption("each listed option in turn", False, max_turns, "in turn"),
        RepeatFirst("the first option, repeated", False, max_turns),
        Echo("the observation echoed back", True, max_turns),
    ]
    family += [
        LongReply(
            f"a {chars:,}-character reply{' with numbers' if digits else ''}",
            True,
            2,
            chars,
            digits,
        )
        for chars, digits in zip(LONG_REPLY_CHARS, (False, True))
    ]
    return family


def by_name(name: str, template: str = BARE, max_turns: int = 4) -> Shortcut:
    """The shortcut of the family with this name.

    Raises:
        KeyError: no shortcut has that name; the message lists them.
    """
    family = {s.name: s for s in shortcut_family(template, max_turns)}
    if name not in family:
        raise KeyError(f"no shortcut named {name!r}; the shortcuts are: {', '.join(family)}")
    return family[name]


BOXED_TEMPLATE = "\\boxed{" + TEMPLATE_SLOT + "}"
"""The answer format every solver prompt asks for."""


class ShortcutSolver:
    """A shortcut as a ``spadegym.play`` solver, so it plays through the same loop as a model.

    Benchmarks measure an environment's floor on their own held-out seeds with it, and the
    trainer's leak check plays it on hinted observations. Each reply reads the conversation's
    last user message (the current observation) and the solver's own earlier replies; the
    generator of a turn is seeded from ``seed``, the first observation and the turn, so a
    replay of the same episode gives the same replies.

    Args:
        shortcut: the policy.
        template: the program's answer format (``reply_template``); ``BOXED_TEMPLATE`` by
            default, the format every solver prompt asks for.
        seed: varies the random choices between runs.
    """

    def __init__(self, shortcut: Shortcut, template: str = BOXED_TEMPLATE, seed: int = 0):
        self.shortcut = shortcut
        self.template = template
        self.seed = seed

    def respond(self, requests: Sequence[list[dict[str, Any]]]) -> list[Any]:
        """One reply per conversation."""
        from spadegym.play import Reply  # the solver loop's type; play does not import this

        replies = []
        for messages in requests:
            users = [m["content"] for m in messages if m.get("role") == "user"]
            sent = [m["content"] for m in messages if m.get("role") == "assistant"]
            first = users[0] if users else ""
            play = Play(
                users[-1] if users else "",
                sent=sent,
                rng=random.Random(f"{self.seed}:{len(sent)}:{first}"),
                template=self.template,
                first=first,
            )
            replies.append(Reply(self.shortcut.reply(play)))
        return replies
