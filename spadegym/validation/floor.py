"""The ``shortcuts`` check: no shortcut solver wins nearly every instance; the chance floor.

Every shortcut of ``spadegym.validation.shortcuts`` is played on every candidate, in three
stages, so the common case stays cheap and the verdict is read on seeds no choice saw:

1. **Screen**: every shortcut on ``SCREEN_SEEDS`` seeds.
2. **Promote**: shortcuts whose screen mean or solved share reaches ``PROMOTE_AT``, and the
   random listed option always, play the rest of the first ``shortcut_seeds`` seeds. The
   best mean is the candidate for the floor, the best solved share the one for rejection.
3. **Confirm**: both play ``2 * shortcut_seeds`` fresh seeds. The best's mean there is the chance
   floor (a fresh sample, so the max over many shortcuts does not inflate it), and the program
   is rejected when the other solves ``shortcut_threshold`` of all the instances it played.

Why 0.8 of at least 3 x 16 instances: a legitimate binary game (one try, p = 0.5) has a
shortcut solve 80% of 48 instances with probability below 1e-4, while a shortcut that wins
nine instances in ten is rejected almost always; a weaker one still shows in the floor, which
every reward and benchmark subtracts. Partial credit earned without playing (an even spread
that scores 0.9 of the best allocation) is not rejected, but it is the floor: a solver must
beat it to have learned anything.

Seeds come from the distributions players draw from: small seeds, the trainer's training and
evaluation ranges (``[0, 2**30)`` and ``[2**30, 2**31)``, ``ProgramEnv``'s own draws), and
random 32- and 63-bit seeds, all derived from the program text (reproducible, and a program
cannot aim at them without knowing its own hash).

Shortcut plays share instances where their replies agree (the game is deterministic by then:
the ``determinism`` check ran), and a shortcut that repeats itself to an unchanging game is
stopped after two identical exchanges. Every transcript joins the battery's own, so the
``values`` check reads them, and the confirmation plays are replayed once on instances made
after all the others, which checks determinism across instances of one worker.
"""

from __future__ import annotations

import hashlib
import random
import statistics
from dataclasses import dataclass, field
from typing import Any

from spadegym import contract
from spadegym.errors import ProgramError
from spadegym.sandbox import answer_or_error, answer_value, protocol
from spadegym.sandbox.answers import Request
from spadegym.validation.context import Context, first_difference, same_game, seed_name
from spadegym.validation.episodes import ScriptedEpisode
from spadegym.validation.shortcuts import (
    Play,
    RandomOption,
    Shortcut,
    reply_template,
    shortcut_family,
)

SCREEN_SEEDS = 2
"""Seeds every shortcut plays before the promising ones play more."""

REPLAYS = 4
"""Shortcut games (the longest) replayed at the end on new instances, to compare."""

PROMOTE_AT = 0.25
"""Screen mean from which a shortcut plays the rest of the seeds (a single half win does)."""

SEED_RANGES: tuple[tuple[str, int, int], ...] = (
    ("a small seed", 0, 1000),
    ("a training seed", 0, 2**30),
    ("an evaluation seed", 2**30, 2**31),
    ("a 32-bit seed", 0, 2**32),
    ("a 63-bit seed", 0, 2**63),
)
"""Where shortcut seeds are drawn, in turn: what users, Gymnasium and the trainer pass."""


def shortcut_seeds(code: str, count: int, salt: str = "shortcuts") -> list[int]:
    """``count`` distinct seeds from ``SEED_RANGES`` in turn, the same for the same program."""
    rng = random.Random(hashlib.sha256((salt + "\0" + code).encode("utf-8", "replace")).digest())
    seeds: list[int] = []
    k = 0
    while len(seeds) < count:
        _, low, high = SEED_RANGES[k % len(SEED_RANGES)]
        seed = rng.randrange(low, high)
        if seed not in seeds:
            seeds.append(seed)
            k += 1
    return seeds


@dataclass
class _Node:
    """An instance's game so far: what was sent and what came back (shared by agreeing agents)."""

    seed: int
    episode: ScriptedEpisode
    instance: int | None = None
    """The instance that plays it; ``None`` once the game is over."""
    done: bool = False
    outcome: float = 0.0

    @property
    def history(self) -> list[str]:
        return [row[5] for row in self.episode.transcript]

    @property
    def observation(self) -> str:
        rows = self.episode.transcript
        return rows[-1][0] if rows else self.episode.first_observation

    def stalled(self, reply: str) -> bool:
        """Whether sending ``reply`` again would change nothing (two identical exchanges)."""
        rows = self.episode.transcript
        return (
            len(rows) >= 2
            and rows[-1][5] == rows[-2][5] == reply
            and rows[-1][0] == rows[-2][0]
            and rows[-1][1] == rows[-2][1]
        )


@dataclass
class _Agent:
    shortcut: Shortcut
    seed: int
    node: _Node
    play: Play
    outcome: float | None = None


@dataclass
class ShortcutPlay:
    """What the shortcuts did on a set of seeds.

    Attributes:
        outcomes: per shortcut name, its outcome on each seed played (seed -> outcome).
        episodes: every distinct game played (one per group of agreeing shortcuts).
        error: why the game could not be judged (it replayed differently), or ``None``;
            a program failure on a shortcut's reply stays on its episode, for ``values``.
    """

    outcomes: dict[str, dict[int, float]] = field(default_factory=dict)
    episodes: list[ScriptedEpisode] = field(default_factory=list)
    error: str | None = None

    def mean(self, name: str) -> float:
        """The shortcut's mean outcome over the seeds it played."""
        values = list(self.outcomes.get(name, {}).values())
        return statistics.fmean(values) if values else 0.0

    def solved(self, name: str) -> float:
        """The share of the seeds it played that the shortcut solved (outcome 1.0)."""
        values = list(self.outcomes.get(name, {}).values())
        return sum(map(contract.is_solved, values)) / len(values) if values else 0.0


def play_shortcuts(
    ctx: Context, shortcuts: list[Shortcut], seeds: list[int], template: str
) -> ShortcutPlay:
    """Play every shortcut on every seed in lockstep, agreeing shortcuts sharing an instance.

    Each round sends one batch: a step for every live game, and for each group of agents that
    parts from its game a reset plus a replay of the game so far on a spare instance.
    """
    result = ShortcutPlay()
    free: list[int] = []
    distinct = list(dict.fromkeys(seeds))
    _ensure_instances(ctx, free, len(distinct))
    roots: dict[int, _Node] = {}
    requests: list[Request] = []
    for seed in distinct:
        instance = free.pop()
        roots[seed] = _Node(
            seed, ScriptedEpisode(seed=seed, label="shortcut", instance=instance), instance
        )
        requests.append(protocol.reset_request(instance, seed, None))
    for node, request, answer in zip(roots.values(), requests, ctx.exchange(requests)):
        try:
            node.episode.first_observation, node.episode.first_info = answer_value(request, answer)
        except ProgramError as exc:
            result.error = f"{seed_name(node.seed)}: reset() failed: {exc}"
            _close(ctx, [*(n.instance for n in roots.values()), *free])
            return result
    agents = [
        _Agent(
            s,
            seed,
            roots[seed],
            Play(
                roots[seed].episode.first_observation,
                rng=random.Random(f"{ctx.config.fuzz_seed}:{seed}:{s.name}"),
                template=template,
                first=roots[seed].episode.first_observation,
            ),
        )
        for seed in seeds
        for s in shortcuts
    ]
    while True:
        moves: dict[int, dict[str, list[_Agent]]] = {}
        nodes: dict[int, _Node] = {}
        for agent in agents:
            if agent.outcome is not None:
                continue
            node = agent.node
            limit = min(agent.shortcut.max_turns or ctx.max_turns, ctx.max_turns)
            if node.done or agent.play.turn >= limit:
                agent.outcome = node.outcome if node.done else 0.0
                continue
            agent.play.observation = node.observation
            reply = agent.shortcut.reply(agent.play)
            if node.stalled(reply):
                agent.outcome = 0.0
                continue
            nodes[id(node)] = node
            moves.setdefault(id(node), {}).setdefault(reply, []).append(agent)
        if not moves:
            break
        _ensure_instances(ctx, free, sum(len(groups) - 1 for groups in moves.values()))
        batch: list[tuple[_Node, list[list[Any]], str, int, int]] = []
        requests = []
        for key, groups in moves.items():
            parent = nodes[key]
            rows = [list(row) for row in parent.episode.transcript]
            for k, (reply, group) in enumerate(groups.items()):
                first = len(requests)
                node = parent
                if k > 0:  # a new game that parts from the parent's here: replay it first
                    instance = free.pop()
                    episode = ScriptedEpisode(
                        seed=parent.seed,
                        label="shortcut",
                        instance=instance,
                        first_observation=parent.episode.first_observation,
                        first_info=parent.episode.first_info,
                        transcript=[list(row) for row in rows],
                    )
                    node = _Node(parent.seed, episode, instance)
                    requests.append(protocol.reset_request(instance, node.seed, None))
                    requests += [protocol.step_request(instance, row[5]) for row in rows]
                else:
                    assert parent.instance is not None  # a game still played holds its instance
                    instance = parent.instance
                try:
                    requests.append(protocol.step_request(instance, reply))
                except ProgramError:  # longer than the contract allows: not a reply at all
                    del requests[first:]
                    for agent in group:
                        agent.outcome = 0.0
                    if node is not parent:
                        free.append(instance)
                    continue
                batch.append(
                    (node, rows if node is not parent else [], reply, first, len(requests))
                )
                for agent in group:
                    agent.node = node
                    agent.play.sent.append(reply)
        answers = ctx.exchange(requests)
        for node, replayed, reply, first, stop in batch:
            problem = _replayed_differently(requests, answers, first, stop, replayed)
            if problem:
                result.error = result.error or f"{seed_name(node.seed)}: {problem}"
                node.done = True
                continue
            step = answer_or_error(requests[stop - 1], answers[stop - 1])
            if isinstance(step, ProgramError):  # the ``values`` check reports it
                node.episode.error = step
                node.episode.error_during = (
                    f"step() on turn {len(node.history) + 1} with the reply {_show(reply)}"
                )
                node.done = True
                continue
            node.episode.transcript.append(
                [step.observation, step.reward, step.terminated, step.truncated, step.info, reply]
            )
            if step.terminated or step.truncated:
                node.done = True
                node.outcome = contract.episode_outcome(step.reward, step.terminated, {}, 1)
                node.episode.terminated, node.episode.truncated = step.terminated, step.truncated
                if node.instance is not None:
                    free.append(node.instance)  # the game is over: its instance serves another
                node.instance = None
        if result.error:
            break  # the game is not deterministic: nothing more to learn here
    games: dict[int, _Node] = {id(n): n for n in roots.values()}
    for agent in agents:
        games[id(agent.node)] = agent.node
        outcome = agent.outcome if agent.outcome is not None else 0.0
        result.outcomes.setdefault(agent.shortcut.name, {})[agent.seed] = outcome
    result.episodes = [n.episode for n in games.values() if n.episode.transcript or n.episode.error]
    _close(ctx, [*(n.instance for n in games.values()), *free])
    return result


def _replayed_differently(
    requests: list[dict[str, Any]], answers: list[Any], first: int, stop: int, rows: list[list[Any]]
) -> str | None:
    """Why the replay before a parting game's step (reset, then ``rows``) went otherwise."""
    if not rows and stop - first == 1:
        return None
    reset = answer_or_error(requests[first], answers[first])
    if isinstance(reset, ProgramError):
        return f"reset() failed: {reset}"
    for turn, row in enumerate(rows, 1):
        again = answer_or_error(requests[first + turn], answers[first + turn])
        if isinstance(again, ProgramError):
            return f"step() on turn {turn} failed when a game was replayed: {again}"
        if [again.observation, again.reward, again.terminated] != row[:3]:
            return (
                f"a game replayed with the same seed and replies went differently at step "
                f"{turn}. Take all randomness from random.Random(seed) made in reset() and keep "
                "no state between instances"
            )
    return None


def _ensure_instances(ctx: Context, free: list[int], needed: int) -> None:
    """Make sure ``free`` holds at least ``needed`` instances (one batch of ``new``)."""
    if len(free) >= needed:
        return
    creates = [protocol.new_request(ctx.info.program) for _ in range(needed - len(free))]
    for request, answer in zip(creates, ctx.exchange(creates)):
        free.append(answer_value(request, answer))


def _close(ctx: Context, instances: list[int | None]) -> None:
    closes = [protocol.close_request(i) for i in dict.fromkeys(instances) if i is not None]
    try:
        ctx.exchange(closes)
    except ProgramError:
        pass


def _show(reply: str, limit: int = 60) -> str:
    return repr(reply if len(reply) <= limit else reply[:limit] + "...")


def check_shortcuts(ctx: Context) -> str | None:
    """No shortcut solver solves nearly every instance; records the chance floor."""
    cfg = ctx.config
    ctx.facts["floor"] = None
    if ctx.two_player or cfg.shortcut_seeds == 0 or not ctx.solved:
        return None  # a game against an opponent has no floor of this kind
    template = reply_template(ctx.solved[0].solution)
    family = shortcut_family(template, cfg.shortcut_turns)
    # Twice as many fresh seeds confirm: the floor's standard error is then about 0.07, where
    # a floor read too low lets chance pass for skill in every reward that subtracts it.
    seeds = shortcut_seeds(ctx.code, 3 * cfg.shortcut_seeds)
    first, fresh = seeds[: cfg.shortcut_seeds], seeds[cfg.shortcut_seeds :]
    screen = play_shortcuts(ctx, family, first[:SCREEN_SEEDS], template)
    plays = [screen]
    # The fair guesser always plays on: it is the floor of every multiple-choice game, and two
    # screen seeds are too few to see a one-in-three chance.
    promoted = [s for s in family if _promising(screen, s.name) or isinstance(s, RandomOption)]
    if screen.error is None and promoted:
        more = play_shortcuts(ctx, promoted, first[SCREEN_SEEDS:], template)
        plays.append(more)
        for name, played in more.outcomes.items():
            screen.outcomes[name].update(played)
    problem = _errors(plays)
    if problem:
        _remember(ctx, plays)
        return problem
    order = {s.name: k for k, s in enumerate(family)}
    best = max(family, key=lambda s: (screen.mean(s.name), -order[s.name]))
    winner = max(family, key=lambda s: (screen.solved(s.name), -order[s.name]))
    judged = {s.name: dict(screen.outcomes[s.name]) for s in (best, winner)}
    floor = screen.mean(best.name)
    if floor >= PROMOTE_AT or winner is not best:  # confirm: the best of many is optimistic
        confirm = play_shortcuts(
            ctx, list({best.name: best, winner.name: winner}.values()), fresh, template
        )
        plays.append(confirm)
        problem = _errors([confirm])
        if problem:
            _remember(ctx, plays)
            return problem
        floor = confirm.mean(best.name)
        for name in judged:
            judged[name].update(confirm.outcomes[name])
    longest = sorted(_remember(ctx, plays), key=lambda e: -e.turns)
    problem = _replay(ctx, [e for e in longest if e.error is None][:REPLAYS])
    if problem:
        return problem
    ctx.facts["floor"] = round(min(1.0, max(0.0, floor)), 4)
    ctx.facts["floor_shortcut"] = best.name
    outcomes = list(judged[winner.name].values())
    won = sum(contract.is_solved(v) for v in outcomes)
    if len(outcomes) >= cfg.shortcut_seeds and won >= cfg.shortcut_threshold * len(outcomes):
        return (
            f"A shortcut wins without playing the game: {winner.name}, sent every turn, solves "
            f"{won} of {len(outcomes)} instances. " + _advice(winner)
        )
    return None


def _promising(play: ShortcutPlay, name: str) -> bool:
    """Whether a shortcut's screen earns it the rest of the seeds."""
    return play.mean(name) >= PROMOTE_AT or play.solved(name) >= PROMOTE_AT


def _advice(shortcut: Shortcut) -> str:
    name = shortcut.name
    if "number" in name or "echo" in name:
        return (
            "The answer can be read off the observation: show the clues, never the answer "
            "itself (in any disguise)."
        )
    if "option" in name:
        return "Shuffle the options with the instance's generator so no position is the answer."
    if "character reply" in name:
        return "Judge the content of a reply, never its length."
    return "Accept only the right answer for this instance, never a fixed word."


def _errors(plays: list[ShortcutPlay]) -> str | None:
    for play in plays:
        if play.error:
            return f"{play.error}."
    return None


def _replay(ctx: Context, originals: list[ScriptedEpisode]) -> str | None:
    """Replay shortcut games on new instances: the same seed and replies, the same game.

    They are made after every other instance of the battery, in the same worker, so state
    kept between instances (a class attribute, a counter) shows here.
    """
    again = [
        ScriptedEpisode(
            seed=e.seed, actions=[row[5] for row in e.transcript], label="shortcut replay"
        )
        for e in originals
    ]
    ctx.play(again, ctx.max_turns)
    for episode, original in zip(again, originals):
        if episode.error is None and not same_game(episode, original):
            return (
                f"{seed_name(episode.seed)}: replaying a game with the same seed and replies on "
                "a new instance, after other instances were played, gave a different game "
                f"({first_difference(episode, original)}). Take all randomness from "
                "random.Random(seed) made in reset() and keep no state between instances (no "
                "class attributes that change)."
            )
    return None


def _remember(ctx: Context, plays: list[ShortcutPlay]) -> list[ScriptedEpisode]:
    """Hand the transcripts to the later checks (``values`` reads every one); the episodes."""
    added: dict[int, ScriptedEpisode] = {}
    for play in plays:
        for episode in play.episodes:
            added.setdefault(id(episode), episode)
    ctx.played.extend(added.values())
    return list(added.values())
