"""Behavioural signatures: what a program does on a few fixed probes, recorded in a sandbox.

A signature holds, per probe (a fixed seed, some with a difficulty): the first observation
normalised (its numbers in order, its words without layout), the actions of ``solution()``
(one-player kinds), the outcomes of a fixed sequence of probe replies, and for two-player games
a transcript of scripted moves. It is computed by playing the program in a sandbox worker, never
in the host, and is small: one to a few KB of JSON, compressed when stored.

A rewrite that renames, rewords, reformats and restructures a game but still draws its random
numbers in the same order shows the same numbers in its first observations and is won by the
same solutions; ``crossplay`` replays stored solutions in a candidate to find it.
"""

from __future__ import annotations

import functools
import json
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spadegym.errors import ConfigError
from spadegym.sandbox import ProgramInfo
from spadegym.sandbox.pool import Worker
from spadegym.validation.episodes import ScriptedEpisode, play

SIGNATURE_VERSION = 1
"""Bumped when what a signature records changes; older signatures are recomputed or ignored."""


@dataclass(frozen=True)
class Probe:
    """One fixed way of starting an instance: a seed, and a difficulty or the program's default."""

    seed: int
    difficulty: int | None = None

    @property
    def options(self) -> dict[str, Any] | None:
        """The ``options`` of ``reset``."""
        return None if self.difficulty is None else {"difficulty": self.difficulty}

    def __str__(self) -> str:
        return f"seed {self.seed}" + (
            "" if self.difficulty is None else f" at difficulty {self.difficulty}"
        )


PROBES: tuple[Probe, ...] = (Probe(0), Probe(1), Probe(2), Probe(3, 1), Probe(4, 5))
"""Every signature's probes: three seeds at the default difficulty, two at the extremes."""

PROBE_REPLIES: tuple[str, ...] = ("", "\\boxed{1}", "\\boxed{test}", "\\boxed{42}")
"""Replies played in this order, one a turn, from each probe's start (until the game ends)."""

SCRIPT_MOVES = 8
"""Scripted moves of a two-player game's transcript, both seats together."""

MAX_SOLUTION_CHARS = 4000
"""A probe's solution longer than this is not recorded (signatures stay a few KB)."""

MAX_NUMBERS = 64
MAX_WORDS = 120

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_WORD = re.compile(r"[a-z]+")
_BOXED = re.compile(r"\\boxed\{([^{}]{1,40})\}")
_LISTED = re.compile(r"(?im)^.*?\blegal (?:moves?|actions?)\s*:\s*([^\n]*)")
_PLACEHOLDER = re.compile(r"\b[A-Z]\b")


@dataclass(frozen=True)
class ProbeRecord:
    """What one probe showed.

    Attributes:
        probe: the probe.
        numbers: the numbers of the first observation, in order, written canonically.
        words: the words of the first observation, lower case, one space apart.
        solution: the actions of ``solution()`` (one-player), or ``None`` when there is none,
            it failed, or it was too long to record.
        replies: ``(reward, terminated)`` after each of ``PROBE_REPLIES`` played in turn.
        script: the scripted moves of a two-player game, in the order played.
        transcript: ``(reward, terminated, player, outcome)`` after each scripted move.
        error: the program's failure on this probe, if any.
    """

    probe: Probe
    numbers: tuple[str, ...] = ()
    words: str = ""
    solution: tuple[str, ...] | None = None
    replies: tuple[tuple[float, bool], ...] = ()
    script: tuple[str, ...] = ()
    transcript: tuple[tuple[Any, ...], ...] = ()
    error: str | None = None

    @functools.cached_property
    def templates(self) -> frozenset[str]:
        """The templates (``action_template``) of this probe's solution actions."""
        return frozenset(action_template(a) for a in self.solution or () if a.strip())


@dataclass(frozen=True)
class Signature:
    """The behavioural signature of one program.

    Attributes:
        two_player: whether the program is a two-player game (probes carry transcripts of
            scripted moves instead of solutions).
        probes: one record per probe of ``PROBES``, in that order.
    """

    two_player: bool
    probes: tuple[ProbeRecord, ...]

    @functools.cached_property
    def templates(self) -> frozenset[str]:
        """The templates (``action_template``) of every recorded solution action."""
        return frozenset().union(*(p.templates for p in self.probes))

    def to_json(self) -> dict[str, Any]:
        """A plain JSON value."""
        return {
            "version": SIGNATURE_VERSION,
            "two_player": self.two_player,
            "probes": [
                {
                    "seed": p.probe.seed,
                    "difficulty": p.probe.difficulty,
                    "numbers": list(p.numbers),
                    "words": p.words,
                    "solution": None if p.solution is None else list(p.solution),
                    "replies": [list(r) for r in p.replies],
                    "script": list(p.script),
                    "transcript": [list(t) for t in p.transcript],
                    "error": p.error,
                }
                for p in self.probes
            ],
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Signature:
        """Read ``to_json``'s value back.

        Raises:
            ConfigError: the value is not a signature of this version.
        """
        if not isinstance(value, dict) or value.get("version") != SIGNATURE_VERSION:
            raise ConfigError(
                f"a stored behavioural signature has version "
                f"{value.get('version') if isinstance(value, dict) else None!r}, not "
                f"{SIGNATURE_VERSION}; recompute it (add the environment again)"
            )
        probes = tuple(
            ProbeRecord(
                Probe(p["seed"], p["difficulty"]),
                tuple(p["numbers"]),
                p["words"],
                None if p["solution"] is None else tuple(p["solution"]),
                tuple((float(r), bool(t)) for r, t in p["replies"]),
                tuple(p["script"]),
                tuple(tuple(_freeze(x) for x in t) for t in p["transcript"]),
                p["error"],
            )
            for p in value["probes"]
        )
        return cls(bool(value["two_player"]), probes)

    def to_bytes(self) -> bytes:
        """Compressed JSON, as stored."""
        return zlib.compress(json.dumps(self.to_json(), separators=(",", ":")).encode(), 6)

    @classmethod
    def from_bytes(cls, blob: bytes) -> Signature:
        """Read ``to_bytes``'s value back."""
        return cls.from_json(json.loads(zlib.decompress(blob)))


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def numbers_of(text: str) -> tuple[str, ...]:
    """The numbers of a text in order, canonical (``007`` is ``7``, ``2.50`` is ``2.5``)."""
    found = []
    for match in _NUMBER.findall(text)[:MAX_NUMBERS]:
        found.append(repr(float(match)) if "." in match else str(int(match)))
    return tuple(found)


def words_of(text: str) -> str:
    """The words of a text, lower case, one space apart: its wording without its layout."""
    return " ".join(_WORD.findall(text.lower())[:MAX_WORDS])


def action_template(action: str) -> str:
    r"""An action with its content abstracted: letters ``a``, digits ``0``, no spaces.

    Two games that read answers the same way (``\boxed{RGBY}``, ``\boxed{take 1 2}``, a tool
    call) give the same templates; a stored solution whose templates the candidate never uses
    cannot win it, so cross-play skips it.
    """
    text = re.sub(r"\s+", "", action)
    text = re.sub(r"[A-Za-z_]+", "a", text)
    return re.sub(r"\d+", "0", text)


def scripted_move(observation: str, turn: int) -> str:
    r"""A two-player move chosen from what the observation offers, the same for every program.

    The first list after "Legal moves:" (or "legal actions:"), else the ``\boxed{...}``
    examples without placeholders, else ``\boxed{1}``; the entry is picked by turn (with the
    seed added), so a script walks through the offered moves instead of repeating the first.
    """
    offered: list[str] = []
    listed = _LISTED.search(observation)
    if listed:
        text = re.sub(r"\([^)]*\)", "", listed.group(1))
        offered = [m.strip(" .;") for m in text.split(",") if 0 < len(m.strip(" .;")) <= 40]
    if not offered:
        offered = [b for b in _BOXED.findall(observation) if not _PLACEHOLDER.search(b)]
    if not offered:
        return "\\boxed{1}"
    return "\\boxed{" + offered[turn % len(offered)] + "}"


def number_overlap(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Multiset Jaccard of two number lists; ``None`` when neither has any."""
    if not a and not b:
        return None
    ca, cb = Counter(a), Counter(b)
    return sum((ca & cb).values()) / sum((ca | cb).values())


def observation_alignment(a: Signature, b: Signature) -> tuple[float, float] | None:
    """How the numbers of two programs' first observations agree, probe for probe.

    Returns:
        ``(aligned, shifted)``: the mean number overlap of the same probes, and of each probe
        against the next one (a baseline: numbers every instance shows, such as a turn limit,
        overlap at any seed). ``None`` when the observations hold no numbers.
    """
    pa, pb = a.probes, b.probes
    if len(pa) != len(pb) or len(pa) < 2:
        return None
    aligned = [number_overlap(x.numbers, y.numbers) for x, y in zip(pa, pb, strict=True)]
    shifted = [number_overlap(pa[k].numbers, pb[(k + 1) % len(pb)].numbers) for k in range(len(pa))]
    aligned_values = [v for v in aligned if v is not None]
    shifted_values = [v for v in shifted if v is not None]
    if not aligned_values or not shifted_values:
        return None
    return (
        sum(aligned_values) / len(aligned_values),
        sum(shifted_values) / len(shifted_values),
    )


def compute_signature(worker: Worker, source: str, filename: str = "<program>") -> Signature:
    """Play the probes of ``source`` in ``worker`` and record its signature.

    The program is loaded with ``load_cached``, so a worker that already holds it (the one
    that validated it) loads nothing. Every episode of every probe goes out in the same
    batched exchanges (``spadegym.validation.episodes.play``).

    Args:
        worker: a sandbox worker (``SandboxWorker``, or ``InProcessWorker`` for trusted
            programs).
        source: the program.
        filename: how the program's errors name it.

    Raises:
        ProgramError: the program does not load.
        SandboxError: the worker failed.
    """
    info = worker.load_cached(source, filename)
    two_player = info.num_players == 2
    max_turns = _turns(info)
    firsts: list[ScriptedEpisode] = []
    replies: list[ScriptedEpisode] = []
    for probe in PROBES:
        if two_player:
            firsts.append(_ReactiveEpisode(seed=probe.seed, options=probe.options))
        else:
            firsts.append(
                ScriptedEpisode(seed=probe.seed, options=probe.options, use_solution=True)
            )
        replies.append(
            ScriptedEpisode(seed=probe.seed, options=probe.options, actions=[*PROBE_REPLIES])
        )
    play(worker, info, firsts + replies, max_turns)
    records = []
    for probe, first, reply in zip(PROBES, firsts, replies, strict=True):
        records.append(_record(probe, first, reply, two_player))
    return Signature(two_player, tuple(records))


def _turns(info: ProgramInfo) -> int:
    return info.max_turns if isinstance(info.max_turns, int) and info.max_turns > 0 else 1


def _record(
    probe: Probe, first: ScriptedEpisode, reply: ScriptedEpisode, two_player: bool
) -> ProbeRecord:
    observation = first.first_observation or reply.first_observation
    error = first.error or reply.error
    solution = None
    if not two_player and first.error is None and first.solution is not None and first.won():
        if sum(len(a) for a in first.solution) <= MAX_SOLUTION_CHARS:
            solution = tuple(first.solution)
    script: tuple[str, ...] = ()
    transcript: tuple[tuple[Any, ...], ...] = ()
    if two_player and first.error is None:
        script = tuple(row[5] for row in first.transcript)
        transcript = tuple(transcript_row(row) for row in first.transcript)
    return ProbeRecord(
        probe,
        numbers_of(observation),
        words_of(observation),
        solution,
        tuple((float(row[1]), bool(row[2])) for row in reply.transcript),
        script,
        transcript,
        None if error is None else str(error)[:200],
    )


def transcript_row(row: list[Any]) -> tuple[Any, ...]:
    """What a two-player transcript keeps of a step: reward, terminated, player, outcome."""
    info = row[4] if isinstance(row[4], dict) else {}
    outcome = info.get("outcome")
    return (
        round(float(row[1]), 6),
        bool(row[2]),
        info.get("player"),
        tuple(outcome) if isinstance(outcome, list) else outcome,
    )


class _ReactiveEpisode(ScriptedEpisode):
    """A scripted episode whose next move reacts to the observation (``scripted_move``)."""

    def next_action(self) -> str | None:
        if self.turns >= SCRIPT_MOVES:
            return None
        current = self.transcript[-1][0] if self.transcript else self.first_observation
        return scripted_move(current, self.seed + self.turns)
