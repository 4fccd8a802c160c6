"""The behavioural checks: each takes what earlier ones learned and returns a failure or None.

Every message is one or two sentences for the designer model: what went wrong, on which seed
or action, and what to change. What they learn and play is kept on the ``Context``
(``context``), for the checks after them.
"""

from __future__ import annotations

import functools
import random
import re
import statistics
from typing import Any, TypeGuard

from spadegym import contract
from spadegym.errors import ProgramError
from spadegym.validation.context import (
    PROBE_ACTIONS,
    Context,
    first_difference,
    same_game,
    seed_name,
)
from spadegym.validation.episodes import ScriptedEpisode
from spadegym.validation.floor import SEED_RANGES, shortcut_seeds
from spadegym.validation.leak import hint_leak

TRIVIAL_REPLIES = {"an empty reply": "", "an empty \\boxed{}": "\\boxed{}"}

FILLER_CHARS = 2000
"""Length of the filler reply: plausible words, no answer."""

FILLER_TURNS = 2
"""Turns the filler reply is sent (a reward for length shows on the first)."""

_WORDS = (
    "apple river stone seven blue quickly answer maybe yes no left right up down move "
    "take drop open close north south east west one two three"
).split()

_FILLER_WORDS = (
    "let me think about this carefully the puzzle asks for a careful answer so i will "
    "consider each clue in turn and check whether it fits what we already know about the "
    "pieces here maybe the first idea was wrong but the second one looks promising because "
    "it explains more of the pattern then again it might not hold for every case so i should "
    "verify the reasoning once more before writing anything final overall this seems like "
    "the most sensible approach given everything observed so far"
).split()


def random_words(seed: int, count: int = 6) -> str:
    """A reply of random words (seeded), a stand-in for a reply that carries no thought."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_WORDS) for _ in range(count))


@functools.lru_cache(maxsize=16)
def filler_text(seed: int, chars: int = FILLER_CHARS) -> str:
    """About ``chars`` characters of plausible sentences (seeded) with no answer in them."""
    rng = random.Random(f"filler-{seed}")
    sentences: list[str] = []
    length = 0
    while length < chars:
        words = [rng.choice(_FILLER_WORDS) for _ in range(rng.randint(8, 16))]
        sentence = " ".join(words).capitalize() + rng.choice([".", ".", ",", "?"])
        sentences.append(sentence)
        length += len(sentence) + 1
    return " ".join(sentences)[:chars]


def check_solvable(ctx: Context) -> str | None:
    """``solution()`` wins every tested seed (large ones too) and difficulty within max_turns."""
    cfg = ctx.config
    if ctx.two_player:
        return None
    if not ctx.info.has_solution:
        return (
            "The environment has no solution() method; one-player environments must return "
            "the list of replies that wins the current instance."
        )
    episodes = [ScriptedEpisode(seed=s, use_solution=True, label="seed") for s in range(cfg.seeds)]
    episodes += [
        ScriptedEpisode(seed=s, use_solution=True, label="large") for s in ctx.large_seeds()
    ]
    episodes += [
        ScriptedEpisode(seed=0, options={"difficulty": d}, use_solution=True, label="difficulty")
        for d in cfg.difficulties
    ]
    ctx.play(episodes, ctx.max_turns)
    ctx.solved = [e for e in episodes if e.label == "seed"]
    ctx.large = [e for e in episodes if e.label == "large"]
    for episode in episodes:
        where = seed_name(episode.seed) + (
            f" at difficulty {episode.options['difficulty']}" if episode.options else ""
        )
        if episode.error is not None:
            return f"{where}: {episode.error_during} failed: {episode.error}"
        if episode.solution and len(episode.solution) > ctx.max_turns:
            return (
                f"{where}: solution() has {len(episode.solution)} replies but max_turns is "
                f"{ctx.max_turns}; raise max_turns or shorten the game."
            )
        if not episode.won():
            how = (
                f"the episode ended with reward {episode.outcome()}"
                if episode.terminated
                else "the episode did not terminate after the last solution reply"
            )
            return (
                f"{where}: playing solution() ({episode.turns} replies) does not win: {how}. "
                "solution() must return replies that win with reward 1.0 and terminated=True."
            )
    ctx.facts["solution_turns"] = tuple(len(e.solution or []) for e in ctx.solved)
    return None


def check_procedural(ctx: Context) -> str | None:
    """Different seeds give different instances, large seeds included."""
    seeds = list(range(ctx.config.seeds))
    if not ctx.solved:  # no solutions were played: compare first observations
        small = [ScriptedEpisode(seed=s, actions=[]) for s in seeds]
        ctx.large = [ScriptedEpisode(seed=s, actions=[], label="large") for s in ctx.large_seeds()]
        ctx.play(small + ctx.large, 0)
        for episode in small + ctx.large:
            if episode.error is not None:
                return ctx.episode_failure(episode)
    else:
        small = ctx.solved

    def view(episode: ScriptedEpisode) -> Any:
        return (episode.first_observation, tuple(episode.solution or ()))

    views = {view(e) for e in small}
    needed = min(3, len(seeds))
    if len(views) < needed:
        return (
            f"Seeds {seeds[0]}..{seeds[-1]} gave only {len(views)} distinct instance(s); build "
            "each instance from random.Random(seed) in reset() so seeds differ."
        )
    large = [e.seed for e in ctx.large]
    if len(large) >= 2 and len({view(e) for e in ctx.large}) == 1:
        return (
            f"Seeds {', '.join(map(str, large))} all gave the same instance: large seeds must "
            "give different instances too (the trainer draws seeds up to 2**31). Use the whole "
            "seed: random.Random(seed), not min(seed, ...) or a table indexed by it."
        )
    return None


def check_determinism(ctx: Context) -> str | None:
    """The same seed and actions give the same observations, rewards and infos."""
    cfg = ctx.config
    seeds = list(range(cfg.determinism_seeds)) + ctx.large_seeds()[:1]
    runs = []
    for seed in seeds:
        actions = ctx.actions_for(seed)
        runs.append(
            [
                ScriptedEpisode(seed=seed, actions=actions, label="determinism")
                for _ in range(cfg.determinism_runs)
            ]
        )
    # A whole episode of probe replies too, to max_turns: randomness that starts late in a
    # game (turn 3, after a short solution has ended) shows only in a long one.
    probes = (PROBE_ACTIONS * ctx.max_turns)[: ctx.max_turns]
    if not ctx.two_player and probes != ctx.actions_for(seeds[0]):
        runs.append(
            [
                ScriptedEpisode(seed=seeds[0], actions=probes, label="determinism")
                for _ in range(cfg.determinism_runs)
            ]
        )
    ctx.kept = [e for group in runs for e in group]
    ctx.kept_generation = ctx.worker.generation
    ctx.play(ctx.kept, ctx.max_turns, keep=True)  # the reset check resets them again
    ctx.baselines = {}
    for group in runs:  # the first run of each seed is what later replays compare with
        ctx.baselines.setdefault(group[0].seed, group[0])
    for group in runs:
        for other in group[1:]:
            if not same_game(other, group[0]):
                return (
                    f"{seed_name(group[0].seed)}: two runs with the same seed and actions differ "
                    f"({first_difference(other, group[0])}). Take all randomness from "
                    "random.Random(seed) made in reset(), keep no state between instances, and "
                    "never use time, id() or set order."
                )
    return None


def check_not_trivial(ctx: Context) -> str | None:
    """Replies that carry no thought never win, nor does one seed's solution on most others.

    Filler text (long, plausible, without an answer) earns no positive reward at all.
    """
    cfg = ctx.config
    seeds = list(range(cfg.trivial_seeds))
    if ctx.two_player:
        return _check_illegal_move_loses(ctx)
    # One seed of each range players draw from too: a program that behaves on small seeds
    # and lets every reply win on the trainer's must not pass.
    drawn = shortcut_seeds(ctx.code, len(SEED_RANGES), salt="trivial")
    episodes = []
    for seed in seeds + drawn:
        replies = {
            **TRIVIAL_REPLIES,
            "random words": random_words(seed),
            "filler text": filler_text(seed),
        }
        for label, reply in replies.items():
            if label == "filler text":
                turns = min(FILLER_TURNS, ctx.max_turns)
                episodes.append(ScriptedEpisode(seed=seed, actions=[reply] * turns, label=label))
            elif seed in seeds:
                episodes.append(ScriptedEpisode(seed=seed, repeat=reply, label=label))
            else:  # a drawn seed: a reply that wins there wins at once; keep it cheap
                turns = min(cfg.shortcut_turns, ctx.max_turns)
                episodes.append(ScriptedEpisode(seed=seed, actions=[reply] * turns, label=label))
        if len(ctx.solved) > 1 and seed in seeds:
            donor = ctx.solved[(seed + 1) % len(ctx.solved)]
            if donor.seed != seed and donor.solution:
                episodes.append(
                    ScriptedEpisode(
                        seed=seed,
                        actions=list(donor.solution),
                        label=f"the solution of seed {donor.seed}",
                    )
                )
    ctx.play(episodes, ctx.max_turns)
    ctx.trivial = {(e.seed, e.label): e for e in episodes}
    borrowed_wins = 0
    for episode in episodes:
        if episode.error is not None:
            continue  # robustness is judged by its own check
        if episode.label == "filler text":
            paid = next((row for row in episode.transcript if row[1] > 0), None)
            if paid is not None:
                return (
                    f"{seed_name(episode.seed)}: {FILLER_CHARS:,} characters of filler text with "
                    f"no answer earned reward {paid[1]:g}. Reward only a correct answer, never "
                    "the length or the words of a reply."
                )
        if episode.won():
            if episode.label.startswith("the solution"):
                borrowed_wins += 1
                continue
            return (
                f"{seed_name(episode.seed)}: {episode.label}, repeated every turn, wins. "
                "Winning must require the right moves for this instance, whatever the seed."
            )
    if borrowed_wins * 2 > len(seeds) and borrowed_wins > 0:
        return (
            f"Another seed's solution wins {borrowed_wins} of {len(seeds)} seeds: the "
            "instances are too alike. Make the answer depend on the seed."
        )
    first = next((e for e in episodes if e.repeat == "" and e.transcript), None)
    reacts = False
    if ctx.solved and first is not None and ctx.solved[0].transcript:
        reacts = ctx.solved[0].transcript[0][0] != first.transcript[0][0]
    lengths = ctx.facts.get("solution_turns") or [0]
    ctx.facts["multi_turn"] = bool(statistics.median(lengths) >= 2 and reacts)
    return None


def _check_illegal_move_loses(ctx: Context) -> str | None:
    seeds = range(ctx.config.trivial_seeds)
    replies = {"an empty reply": "", "filler text": None}
    episodes = [
        ScriptedEpisode(seed=s, actions=[filler_text(s) if r is None else r], label=label)
        for s in seeds
        for label, r in replies.items()
    ]
    ctx.play(episodes, 1)
    for episode in episodes:
        if episode.error is not None:
            continue
        player = episode.first_info.get("player")
        if player not in (0, 1):
            return (
                f"Seed {episode.seed}: reset() must put the player to act in info['player'] "
                "(0 or 1) in a two-player game."
            )
        outcome = episode.transcript[-1][4].get("outcome") if episode.transcript else None
        if episode.label == "filler text":
            reward = episode.transcript[-1][1] if episode.transcript else 0.0
            if reward > 0 or (_is_outcome(outcome) and outcome[player] > 0):
                return (
                    f"Seed {episode.seed}: a move of {FILLER_CHARS:,} characters of filler text "
                    "with no move in it earned the mover a positive reward; a reply without a "
                    "legal move must lose."
                )
            continue
        if not episode.terminated:
            return (
                f"Seed {episode.seed}: an empty reply did not end the game; an illegal move "
                "must end it as a loss for the player who made it."
            )
        if (
            not _is_outcome(outcome)
            or abs(outcome[0] + outcome[1]) > 1e-9
            or not outcome[player] < 0
        ):
            return (
                f"Seed {episode.seed}: after an illegal move info['outcome'] is {outcome!r}; "
                "it must be [r0, r1] with r0 + r1 == 0 and a negative value for the mover."
            )
    ctx.facts["multi_turn"] = True
    return None


def _is_outcome(value: Any) -> TypeGuard[list[float]]:
    return (
        isinstance(value, list) and len(value) == 2 and all(type(x) in (int, float) for x in value)
    )


_SENTENCE_END = re.compile(r"[.!?](\s|$)")


def check_hint(ctx: Context) -> str | None:
    """``hint()``: short, a few sentences, and it does not give the answer away."""
    if not ctx.info.has_hint:
        ctx.facts["hint"] = None
        return None
    seeds = list(range(min(3, ctx.config.seeds)))
    missing = [s for s in seeds if s not in ctx.hints]
    if missing:  # the privileged check asks most of them; ask the rest here
        episodes = [ScriptedEpisode(seed=s, actions=[], calls=("hint",)) for s in missing]
        ctx.play(episodes, 0)
        for episode in episodes:
            ctx.hints[episode.seed] = episode.error or (episode.called or [None])[0]
    hints = []
    for seed in seeds:
        solved = ctx.solved[seed] if seed < len(ctx.solved) else None
        hint = ctx.hints[seed]
        if isinstance(hint, ProgramError):
            return f"Seed {seed}: hint() failed: {hint}"
        hints.append(hint)
        if not hint.strip():
            return f"Seed {seed}: hint() returned an empty string; return 1-3 sentences."
        if len(hint) >= contract.MAX_HINT_CHARS:
            return (
                f"Seed {seed}: hint() is {len(hint)} characters; keep it under "
                f"{contract.MAX_HINT_CHARS} (1-3 sentences)."
            )
        if len(_SENTENCE_END.findall(hint)) > 3:
            return f"Seed {seed}: hint() has more than 3 sentences; keep it to 1-3."
        leak = hint_leak(hint, solved.solution if solved else None)
        if leak:
            return (
                f"Seed {seed}: hint() contains {leak}, which gives the answer away; describe "
                "the approach, not the moves."
            )
    ctx.facts["hint"] = hints[0] if hints else None
    return None
