"""What the behavioural checks share about one program: the ``Context``, and transcripts compared.

The checks keep the episodes they play on the ``Context``, so later checks (values, isolation,
reset, privileged) judge the same transcripts or replay them, and the battery's facts about the
program collect there until they become the report's ``ProgramProperties``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ProgramError
from spadegym.sandbox import ProgramInfo, Worker, protocol
from spadegym.validation.budget import Clock
from spadegym.validation.config import ValidationConfig
from spadegym.validation.episodes import ScriptedEpisode, play

PROBE_ACTIONS = ["\\boxed{1}", "\\boxed{test}", "\\boxed{42}", ""]
"""Replies played where a program has no solution (SPADE's smoke test, plus an empty reply)."""

GAME_TURNS = 16
"""Moves of a random game that the determinism runs replay (the whole game is rarely needed)."""

LARGE_SEED_MIN, LARGE_SEED_MAX = 10**6, 2**31 - 2
"""Where the large seeds are drawn: from a million up to the largest seed ``ProgramEnv`` draws."""


@dataclass
class Context:
    """What the behavioural checks share about one program under validation."""

    worker: Worker
    info: ProgramInfo
    max_turns: int
    config: ValidationConfig
    clock: Clock | None = None
    code: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    """What becomes the report's ``ProgramProperties``."""
    played: list[ScriptedEpisode] = field(default_factory=list)
    """Every episode played, for the ``values`` check."""
    fresh: ScriptedEpisode | None = None
    """The first episode played in the worker, before any other instance existed."""
    solved: list[ScriptedEpisode] = field(default_factory=list)
    """``solution()`` played on seeds 0..seeds-1, in order."""
    large: list[ScriptedEpisode] = field(default_factory=list)
    """The large seeds: their solution episodes (or, without one, their first observation)."""
    games: list[ScriptedEpisode] = field(default_factory=list)
    """Two-player games of random legal moves (the moves that were kept)."""
    baselines: dict[int, ScriptedEpisode] = field(default_factory=dict)
    """The first determinism run per seed: what later replays of that seed must give."""
    kept: list[ScriptedEpisode] = field(default_factory=list)
    """Determinism runs whose instances stay open, to be reset again by the ``reset`` check."""
    trivial: dict[tuple[int, str], ScriptedEpisode] = field(default_factory=dict)
    """The ``not_trivial`` episodes by (seed, label)."""
    kept_generation: int = 0
    """The worker's generation when ``kept`` was played (a restart loses the instances)."""
    hints: dict[int, Any] = field(default_factory=dict)
    """``hint()`` per seed (a str, or the ``ProgramError`` it raised), once asked."""
    replays: Any = None
    """The replays of the state checks, once played (``state.replays``)."""

    @property
    def two_player(self) -> bool:
        """Whether the program is a two-player game."""
        return self.info.num_players == 2

    def play(self, episodes: list[ScriptedEpisode], max_turns: int, *, keep: bool = False) -> None:
        """Play ``episodes`` in this worker, timed by the clock, and remember them."""
        exchange = self.clock.exchange if self.clock is not None else None
        play(self.worker, self.info, episodes, max_turns, exchange=exchange, keep=keep)
        self.played.extend(episodes)

    def exchange(self, requests: list[dict[str, Any]]) -> list[Any]:
        """Send a batch of requests to the worker (timed by the clock); the answers."""
        if self.clock is not None:
            return self.clock.exchange(requests)
        return self.worker.exchange(requests)

    def close(self, episodes: list[ScriptedEpisode]) -> None:
        """Close the instances of ``episodes`` that were kept open."""
        closes = [protocol.close_request(e.instance) for e in episodes if e.instance is not None]
        try:
            self.exchange(closes)
        except ProgramError:
            pass

    def close_kept(self, more: Sequence[ScriptedEpisode] = ()) -> None:
        """Close the instances ``kept`` open, once, and those of ``more``, in one batch."""
        kept = self.kept if self.worker.generation == self.kept_generation else []
        self.close(list(more) + kept)
        self.kept_generation = -1

    def large_seeds(self) -> list[int]:
        """``config.large_seeds`` seeds >= 10**6, drawn from the program text (reproducible)."""
        return large_seeds(self.code, self.config.large_seeds)

    def actions_for(self, seed: int) -> list[str]:
        """Replies worth replaying on ``seed``: its solution, a random game's moves, or probes."""
        for episode in self.solved + self.large:
            if episode.seed == seed and episode.error is None and episode.transcript:
                return [row[5] for row in episode.transcript]
        for episode in self.games:
            if episode.seed == seed and episode.error is None and episode.transcript:
                return [row[5] for row in episode.transcript][:GAME_TURNS]
        return list(PROBE_ACTIONS)

    def episode_failure(self, episode: ScriptedEpisode) -> str:
        """A sentence for an episode that hit a program error."""
        return f"{seed_name(episode.seed)}: {episode.error_during} failed: {episode.error}"


def seed_name(seed: int) -> str:
    """``Seed N``, saying why a large seed is tried when it is one."""
    if seed >= 2**32:
        return f"Seed {seed} (a 63-bit seed: players may pass any int)"
    if seed >= 2**31:
        return f"Seed {seed} (a 32-bit seed, as numpy's generators draw)"
    if seed >= LARGE_SEED_MIN:
        return f"Seed {seed} (a large seed: the trainer draws seeds up to 2**31)"
    return f"Seed {seed}"


def large_seeds(code: str, count: int) -> list[int]:
    """``count`` distinct seeds in [10**6, 2**31 - 2], the same for the same program text."""
    digest = hashlib.sha256(code.encode("utf-8", "surrogatepass")).digest()
    rng = random.Random(digest)
    seeds: list[int] = []
    while len(seeds) < count:
        seed = rng.randint(LARGE_SEED_MIN, LARGE_SEED_MAX)
        if seed not in seeds:
            seeds.append(seed)
    return seeds


def _transcript_key(episode: ScriptedEpisode) -> Any:
    return (
        episode.first_observation,
        episode.first_info,
        [row[:5] for row in episode.transcript],
        None if episode.error is None else str(episode.error),
    )


def first_difference(episode: ScriptedEpisode, reference: ScriptedEpisode) -> str:
    """Where ``episode`` departs from ``reference`` (same seed and replies), in a few words."""
    if episode.first_observation != reference.first_observation:
        return "the observation after reset() differs"
    if episode.first_info != reference.first_info:
        return "the info after reset() differs"
    for turn, (row, ref) in enumerate(zip(episode.transcript, reference.transcript), 1):
        if row[:5] != ref[:5]:
            part = next(
                name
                for name, a, b in zip(
                    ("observation", "reward", "terminated", "truncated", "info"), row, ref
                )
                if a != b
            )
            return f"the {part} after step {turn} differs"
    if episode.turns != reference.turns:
        return f"one game lasted {reference.turns} steps, the other {episode.turns}"
    return "one of them failed: " + str(episode.error or reference.error)


def same_game(episode: ScriptedEpisode, reference: ScriptedEpisode) -> bool:
    """Whether two plays of one seed and one list of replies went exactly alike."""
    return bool(_transcript_key(episode) == _transcript_key(reference))
