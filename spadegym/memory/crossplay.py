"""Cross-play: stored environments' recorded solutions replayed in a candidate, probe for probe.

If the solutions another environment recorded on the probes (``signature.PROBES``) win the
candidate on the same probes, while one probe's solution does not win another probe's
instance, the candidate is that game: it builds the same instances from the same seeds and
accepts the same answers, whatever its code and wording look like. Two-player games have no
solutions; the stored transcript of scripted moves is replayed instead, and must come out the
same.

All replays run in the candidate's own worker, batched: first every neighbour's first probe in
one ``play`` (a few exchanges, whatever the number of neighbours), then the other probes and
the controls of the few neighbours that won the first. A neighbour whose solution actions have
templates the candidate's own solutions never use is not replayed at all (it could not be
read), and a stored solution equal to the candidate's own is known to win without playing.
What a check costs is therefore about one candidate ``reset`` per neighbour replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spadegym.memory.signature import PROBES, Signature, transcript_row
from spadegym.sandbox.pool import Worker
from spadegym.validation.episodes import ScriptedEpisode, play

PARTIAL_WINS = 2
"""Probes a stored solution must win, with no control won, when it does not win them all."""

DEFAULT_PROBES = tuple(k for k, p in enumerate(PROBES) if p.difficulty is None)
"""The probes at the default difficulty, whose solutions are swapped for the controls."""


@dataclass(frozen=True)
class CrossPlay:
    """How one stored environment's recorded play fares in the candidate.

    Attributes:
        played: probes replayed, or known without playing (0: nothing comparable was
            recorded, or the templates of its actions ruled it out).
        wins: of them, those its solution won (one-player) or whose transcript came out the
            same (two-player).
        controls: replays of one default-difficulty probe's solution on the next one's
            instance. None are needed when every stored solution equals the candidate's own:
            validation's not-trivial check already played those.
        control_wins: of them, those that won: a candidate that another seed's solution wins
            does not depend on the seed, and wins say less about it.
    """

    played: int = 0
    wins: int = 0
    controls: int = 0
    control_wins: int = 0

    @property
    def same_game(self) -> bool:
        """Whether this is evidence of the same game.

        Either every probe was replayed and won, with at most half the controls won (the
        not-trivial check's own tolerance for another seed's solution); or at least
        ``PARTIAL_WINS`` probes were won and no control was: a rewrite that draws some of its
        random numbers in another order still builds some of the same instances, while a
        different game's solution wins none (not one probe in the development set).
        """
        if self.played == len(PROBES) and self.wins == self.played:
            return 2 * self.control_wins <= self.controls
        return self.wins >= PARTIAL_WINS and self.controls > 0 and self.control_wins == 0

    def __str__(self) -> str:
        if not self.played:
            return "-"
        control = f", {self.control_wins}/{self.controls} shifted" if self.controls else ""
        return f"{self.wins}/{self.played}{control}"


def cross_play(
    worker: Worker,
    source: str,
    candidate: Signature,
    neighbours: Mapping[str, Signature],
) -> dict[str, CrossPlay]:
    """Replay the neighbours' recorded play in the candidate, loaded in ``worker``.

    Args:
        worker: a worker holding (or able to load) the candidate.
        source: the candidate program.
        candidate: the candidate's own signature (its templates and solutions save replays).
        neighbours: stored environments' signatures, by id.

    Returns:
        A ``CrossPlay`` per neighbour.
    """
    info = worker.load_cached(source)
    turns = info.max_turns if isinstance(info.max_turns, int) and info.max_turns > 0 else 1
    replay = _Replay(candidate)
    comparable = {
        env: sig
        for env, sig in neighbours.items()
        if sig.two_player == candidate.two_player and len(sig.probes) == len(PROBES)
    }
    for env_id, signature in comparable.items():
        replay.aligned(env_id, signature, range(1), screen=True)
    replay.run(worker, info, turns)
    for env_id, signature in comparable.items():
        if replay.wins(env_id) == replay.played(env_id) > 0:
            replay.aligned(env_id, signature, range(1, len(PROBES)))
            if not signature.two_player and not replay.identical(signature):
                replay.shifted(env_id, signature)
    replay.run(worker, info, turns)
    return {env_id: replay.result(env_id) for env_id in neighbours}


class _Replay:
    """Episodes to play, their bookkeeping, and outcomes known without playing."""

    def __init__(self, candidate: Signature):
        self.candidate = candidate
        self.templates = candidate.templates
        self.pending: list[tuple[str, bool, ScriptedEpisode, Any]] = []
        self.outcomes: dict[str, list[tuple[bool, bool]]] = {}

    def aligned(
        self, env_id: str, signature: Signature, probes: range, screen: bool = False
    ) -> None:
        """Plan the neighbour's record of each probe on the candidate's same probe.

        With ``screen``, a one-player solution none of whose action templates the candidate
        uses is skipped: it could not even be read.
        """
        self.outcomes.setdefault(env_id, [])
        for k in probes:
            record = signature.probes[k]
            if signature.two_player:
                if record.script:
                    self._plan(env_id, False, k, list(record.script), record.transcript)
                continue
            if not record.solution:
                continue
            if screen and not record.templates & self.templates:
                continue
            own = self.candidate.probes[k].solution
            if own is not None and tuple(record.solution) == tuple(own):
                # The candidate's own solution of this probe: it wins, as validation showed.
                self.outcomes[env_id].append((False, True))
                continue
            self._plan(env_id, False, k, list(record.solution), None)

    def shifted(self, env_id: str, signature: Signature) -> None:
        """Plan each default probe's solution on the next default probe's instance."""
        for i, k in enumerate(DEFAULT_PROBES):
            source = signature.probes[DEFAULT_PROBES[(i + 1) % len(DEFAULT_PROBES)]]
            if source.solution:
                self._plan(env_id, True, k, list(source.solution), None)

    def identical(self, signature: Signature) -> bool:
        """Whether every recorded solution equals the candidate's own for that probe."""
        return all(
            mine.solution is not None and theirs.solution == mine.solution
            for mine, theirs in zip(self.candidate.probes, signature.probes, strict=True)
        )

    def _plan(
        self, env_id: str, control: bool, k: int, actions: list[str], transcript: Any
    ) -> None:
        probe = PROBES[k]
        episode = ScriptedEpisode(seed=probe.seed, options=probe.options, actions=actions)
        self.pending.append((env_id, control, episode, transcript))

    def run(self, worker: Worker, info: Any, turns: int) -> None:
        """Play every pending episode in one batch and record the outcomes.

        Identical replays (the same actions on the same probe, as copies of one environment
        stored under several ids record) are played once.
        """
        if not self.pending:
            return
        unique: dict[tuple[int, str, tuple[str, ...]], ScriptedEpisode] = {}
        for _, _, episode, _ in self.pending:
            key = (episode.seed, repr(episode.options), tuple(episode.actions or ()))
            unique.setdefault(key, episode)
        play(worker, info, list(unique.values()), turns)
        for env_id, control, planned, transcript in self.pending:
            episode = unique[(planned.seed, repr(planned.options), tuple(planned.actions or ()))]
            if transcript is None:
                won = episode.error is None and episode.won()
            else:
                won = (
                    episode.error is None
                    and len(transcript) >= 2
                    and tuple(transcript_row(row) for row in episode.transcript) == transcript
                )
            self.outcomes[env_id].append((control, won))
        self.pending = []

    def played(self, env_id: str) -> int:
        return sum(1 for control, _ in self.outcomes.get(env_id, ()) if not control)

    def wins(self, env_id: str) -> int:
        return sum(1 for control, won in self.outcomes.get(env_id, ()) if won and not control)

    def result(self, env_id: str) -> CrossPlay:
        controls = [won for control, won in self.outcomes.get(env_id, []) if control]
        return CrossPlay(self.played(env_id), self.wins(env_id), len(controls), sum(controls))
