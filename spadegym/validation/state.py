"""Replays that catch state kept in the wrong place, all played in one batch near the end.

Three mistakes make a program behave differently than its transcripts so far, and each is
caught by replaying a transcript the battery already has, with the same seed and replies:

- ``isolation``: state shared between instances (a list or dict in the class body, a module
  global). A new instance, played after dozens of others in the same worker, must give the
  same game as the first instance the worker ever made and as the determinism runs.
- ``reset``: state that ``reset`` does not set again. The determinism runs' instances, kept
  open, are reset again (to their own seed, and one to the next seed) and must give the same
  game as a new instance.
- ``privileged``: ``solution()`` or ``hint()`` that change the state. With both called right
  after ``reset``, the same replies must give the same game, and ``solution()`` the same list.

A replay is compared with a new instance's replay made in the same batch, so each check blames
only its own mistake; seeds whose determinism runs already differed are not judged again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ProgramError
from spadegym.validation.context import (
    LARGE_SEED_MIN,
    Context,
    first_difference,
    same_game,
    seed_name,
)
from spadegym.validation.episodes import ScriptedEpisode

PROBE_TURNS = 2
"""Turns of random words replayed on seed 0 after ``solution()`` and ``hint()`` are called."""

REPLAY_TURNS = 8
"""Replies replayed at most: state kept in the wrong place shows within the first few."""


@dataclass
class Replays:
    """The replays of the three checks, and what each is compared with."""

    isolation: list[tuple[ScriptedEpisode, ScriptedEpisode]] = field(default_factory=list)
    """(a new instance's replay, the earlier episode it repeats)."""
    reset: list[tuple[ScriptedEpisode, ScriptedEpisode, int]] = field(default_factory=list)
    """(a replay on a used instance, a new instance's replay in the same batch, the seed the
    used instance played before)."""
    privileged: list[tuple[ScriptedEpisode, ScriptedEpisode]] = field(default_factory=list)
    """(a replay with solution() and hint() called after reset, the same without them)."""


def replays(ctx: Context) -> Replays:
    """Play the replays of ``isolation``, ``reset`` and ``privileged`` once, in one batch."""
    cached: Replays | None = ctx.replays
    if cached is not None:
        return cached
    plan = Replays()
    current: dict[int, ScriptedEpisode] = {}
    if ctx.fresh is not None:
        plan.isolation.append((_again(ctx.fresh, "isolation"), ctx.fresh))
    # The small seeds only: the large one's determinism runs already showed it replays alike.
    seeds = [seed for seed in ctx.baselines if seed < LARGE_SEED_MIN]
    for seed in seeds:
        current[seed] = _again(ctx.baselines[seed], "isolation")
        plan.isolation.append((current[seed], _prefix(ctx.baselines[seed], current[seed])))
    if ctx.worker.generation == ctx.kept_generation:
        runs = {seed: [e for e in ctx.kept if e.seed == seed] for seed in seeds}
        legs = [(runs[seed][0], seed) for seed in seeds]  # reset #2 with the seed of reset #1
        if len(seeds) > 1 and len(runs[seeds[0]]) > 1:  # and once after another seed's game
            legs.append((runs[seeds[0]][1], seeds[1]))
        for kept, target in legs:
            if kept.instance is None:  # it could not even be created
                continue
            leg = _again(ctx.baselines[target], "reset", instance=kept.instance)
            plan.reset.append((leg, current[target], kept.seed))
    calls = _privileged_calls(ctx)
    if calls:
        for seed in seeds:
            plan.privileged.append(
                (_again(ctx.baselines[seed], "privileged", calls=calls), current[seed])
            )
        base = ctx.trivial.get((0, "random words"))
        if base is not None and base.error is None and base.turns and base.repeat is not None:
            reference = ScriptedEpisode(
                seed=0, actions=[base.repeat] * min(PROBE_TURNS, base.turns)
            )
            plan.isolation.append((reference, _prefix(base, reference)))
            plan.privileged.append((_again(reference, "privileged", calls=calls), reference))
    episodes = [e for pairs in (plan.isolation, plan.reset, plan.privileged) for e, *_ in pairs]
    ctx.replays = plan
    try:
        ctx.play(episodes, ctx.max_turns, keep=True)
    finally:  # one batch closes these and the determinism runs' instances
        ctx.close_kept([e for e, *_ in plan.isolation + plan.privileged])
    if "hint" in calls:
        at = calls.index("hint")
        for episode, _ in plan.privileged:
            if episode.seed not in ctx.hints and len(episode.called) > at:
                ctx.hints[episode.seed] = episode.called[at]
    return plan


def _privileged_calls(ctx: Context) -> tuple[str, ...]:
    methods = [m for m in ("solution", "hint") if getattr(ctx.info, f"has_{m}")]
    if ctx.two_player:  # solution() is not part of a game's contract
        methods = [m for m in methods if m == "hint"]
    return tuple(methods + methods[:1])


def _again(episode: ScriptedEpisode, label: str, **changes: Any) -> ScriptedEpisode:
    """A new episode with the seed, options and (first few) replies of ``episode``."""
    actions = [row[5] for row in episode.transcript] if episode.repeat is not None else None
    actions = actions if actions is not None else list(episode.actions or [])
    return ScriptedEpisode(
        seed=episode.seed,
        options=episode.options,
        actions=actions[:REPLAY_TURNS],
        use_solution=episode.use_solution,
        label=label,
        **changes,
    )


def _prefix(episode: ScriptedEpisode, like: ScriptedEpisode) -> ScriptedEpisode:
    """``episode`` cut to the turns ``like`` will play, to compare the two."""
    turns = len(like.actions or [])
    cut = ScriptedEpisode(seed=episode.seed, actions=like.actions, label=episode.label)
    cut.first_observation, cut.first_info = episode.first_observation, episode.first_info
    cut.transcript = episode.transcript[:turns]
    if episode.turns < turns:  # it failed within the turns compared
        cut.error, cut.error_during = episode.error, episode.error_during
    return cut


def _unstable(ctx: Context, seed: int) -> bool:
    """Whether the determinism runs of ``seed`` already differed (judged there, not here)."""
    groups: dict[tuple[str, ...], list[ScriptedEpisode]] = {}
    for episode in ctx.kept:
        if episode.seed == seed:
            groups.setdefault(tuple(episode.actions or ()), []).append(episode)
    return any(not same_game(e, runs[0]) for runs in groups.values() for e in runs[1:])


def check_isolation(ctx: Context) -> str | None:
    """A new instance played late in the worker gives the game the early ones gave."""
    for replay, reference in replays(ctx).isolation:
        if _unstable(ctx, replay.seed) or same_game(replay, reference):
            continue
        return (
            f"{seed_name(replay.seed)}: the same seed and replies gave a different game after "
            "other instances had been played in this worker "
            f"({first_difference(replay, reference)}). "
            "Keep every per-game value on self, set in reset(): a list, dict or set in the class "
            "body, or a module-level variable, is shared by every instance."
        )
    return None


def check_reset(ctx: Context) -> str | None:
    """``reset`` on a used instance gives the game a new instance gives."""
    plan = replays(ctx)
    isolated = {id(r) for r, ref in plan.isolation if same_game(r, ref)}
    for leg, reference, before in plan.reset:
        if id(reference) not in isolated or _unstable(ctx, leg.seed):
            continue  # shared state, or nondeterminism: judged by their own checks
        if not same_game(leg, reference):
            return (
                f"{seed_name(leg.seed)}: reset() on an instance that had played seed {before} "
                f"gave a different game than on a new instance "
                f"({first_difference(leg, reference)}). reset() must set every per-game value "
                "again (boards, counters, histories, caches), not leave some to __init__."
            )
    return None


def check_privileged(ctx: Context) -> str | None:
    """``solution()`` and ``hint()`` only read the state."""
    plan = replays(ctx)
    isolated = {id(r) for r, ref in plan.isolation if same_game(r, ref)}
    for replay, reference in plan.privileged:
        if id(reference) not in isolated or _unstable(ctx, replay.seed):
            continue
        if replay.error is not None and replay.error_during in (
            "reset()",
            "creating the environment",
        ):
            continue
        if any(isinstance(v, ProgramError) for v in replay.called):
            continue  # the failure is reported by solvable or hint
        called = " and ".join(dict.fromkeys(f"{m}()" for m in replay.calls))
        first, last = replay.called[0], replay.called[-1]
        if first != last:
            return (
                f"{seed_name(replay.seed)}: {replay.calls[0]}() returned something else when "
                f"called again after {called}: calling them changed the state. solution() and "
                "hint() must only read it (work on copies)."
            )
        if not same_game(replay, reference):
            return (
                f"{seed_name(replay.seed)}: with {called} called right after reset(), the same "
                f"replies gave a different game ({first_difference(replay, reference)}). "
                "solution() and hint() must only read the state: work on copies, never move, "
                "count or reveal anything."
            )
    return None
