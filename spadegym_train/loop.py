"""The self-play loop: ``Run.iteration`` reads top to bottom as the steps of one iteration.

1. At the start of a window of ``pool.regen_interval`` iterations, a new pool: in ``spade`` mode the
   designer's candidates (written at the previous window's end, or now for the first) are
   validated, deduplicated and registered, and failed slots are written again from fresh
   documents, up to ``design.attempts`` attempts; in ``fixed`` mode a pool is drawn from the
   registry; in ``curriculum`` mode the curriculum draws (environment, difficulty) slots by
   the solver's recent plays, and learns from this iteration's plays after step 3.
2. The solver plays every pool environment K times without a hint and, at regeneration
   iterations (``play.hint_plays``), K times with one (the hinter's, or the program's own).
3. Outcomes, as win rates, go to the memory and to the designer's window. A program the
   sandbox's watchdog quarantined while it was played (it slowed down or changed as it ran) is
   dropped from the pool and counts as failed for its designer (``rewards.timeout_penalty``).
4. Solver advantages: z-scores per environment, SPIRAL's role baselines for two-player games.
5. At a window's end, designer rewards, centred per skill and scaled as SPADE does.
6. ``ppo.epochs`` clipped policy-gradient steps on the LoRA weights, with truncated importance
   sampling against the engine's log-probs.
7. At a window's end, the designer writes the next window's first attempts, validated on a
   background thread while (8) the evaluation, the metrics and the checkpoint run.
   ``design.async_regeneration`` writes each window's a whole window ahead instead.

Time is recorded by one ``Stopwatch``: ``time/<step>`` per step, and ``time/env_share`` for the
environment side (validation, deduplication, registration and sandbox stepping).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spadegym.contract import chance_adjusted
from spadegym.designer import Candidate
from spadegym.designer.rounds import Validated, commit_round, find_copies, validate_round
from spadegym.designer.slots import retry_requests
from spadegym.play import Episode, EpisodeSpec, HintSource, play_episodes
from spadegym.registry import Registry, use_home
from spadegym.sandbox.watchdog import expect_report
from spadegym.util.quiet import quiet_model_loading
from spadegym.validation import Validator
from spadegym_train import checkpoint as ckpt
from spadegym_train import footprint
from spadegym_train.advantages import (
    RoleBaselines,
    designer_advantages,
    designer_scale,
    solver_advantages,
)
from spadegym_train.config import TrainConfig
from spadegym_train.curriculum import (
    Curriculum,
    curriculum_pool,
    record_plays,
)
from spadegym_train.design import (
    Plays,
    first_requests,
    pool_entry,
    recorded_replies,
    round_metrics,
    write_candidates,
)
from spadegym_train.design_prompts import prompt_budget_problem
from spadegym_train.engines import Completion, make_engine
from spadegym_train.floors import floor_measurer
from spadegym_train.hinter import make_hinter
from spadegym_train.library import LibraryEnv, PoolEnv, describe, select_library
from spadegym_train.loss import Sample, fill_old_logprobs, make_optimizer, update
from spadegym_train.metrics import MetricsLogger, Stopwatch, truncate_jsonl
from spadegym_train.model import compute_dtype, load_policy
from spadegym_train.rewards import (
    adjusted_rate,
    designer_reward,
    mean,
    regret_of_plays,
    solve_rate,
)
from spadegym_train.solver import engine_solver, open_episode_pool

EVAL_SEEDS = 2**30
"""Training plays draw seeds below this and evaluations at or above it, so
``evaluation.split=seeds`` never evaluates an instance the solver trained on."""


def seed_everything(seed: int) -> None:
    """Seed torch, numpy and random."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def episode_seed(
    run_seed: int, iteration: int, env_key: str, play: int, evaluation: bool = False
) -> int:
    """The reset seed of a play.

    Plain and hint plays share seeds, so regret compares like with like; evaluation seeds
    come from a range training never draws from.
    """
    seed = random.Random(f"{run_seed}:{iteration}:{env_key}:{play}").randrange(EVAL_SEEDS)
    return seed + EVAL_SEEDS if evaluation else seed


def _sum_into(metrics: dict[str, float], more: dict[str, float]) -> None:
    for key, value in more.items():
        metrics[key] = metrics.get(key, 0.0) + value


def _designer_metrics(
    scored: list[Candidate], rewards: list[float], pooled: list[tuple[Candidate, Plays]]
) -> dict[str, float]:
    """``designer/`` metrics: rewards of the trained candidates, rates of every pooled one."""
    played = [(c.floor, p) for c, p in pooled if c.accepted]
    metrics = {
        "designer/reward": mean(rewards),
        "designer/candidates": float(len(scored)),
        "designer/valid_rate": mean([1.0 if c.accepted else 0.0 for c in scored]),
        "designer/regret": mean([regret_of_plays(p.matched, p.hint) for _, p in played]),
        "designer/regret_adjusted": mean(
            [regret_of_plays(p.matched, p.hint, floor=f, adjusted=True) for f, p in played]
        ),
        "designer/solver_win_rate": mean([mean(p.plain) for _, p in played]),
        "designer/solver_win_rate_adjusted": mean([adjusted_rate(p.plain, f) for f, p in played]),
        "designer/failed_envs": float(sum(p.failed for _, p in played)),
    }
    for skill in sorted({c.skill for c in scored}):
        values = [r for c, r in zip(scored, rewards, strict=True) if c.skill == skill]
        metrics[f"designer/reward_mean/{skill}"] = mean(values)
        metrics[f"designer/reward_std/{skill}"] = float(np.std(values))
    return metrics


def matched_plain(plain: list[Episode], hinted: list[Episode]) -> list[float]:
    """For each hint play, the win rate of the plain play of the same iteration and seed.

    ``plain`` and ``hinted`` are one environment's plays of one iteration; hint plays whose
    hint was dropped are not in ``hinted``. A hint play whose plain twin is missing is matched
    by nothing and must be left out by the caller (``paired_plays``).
    """
    by_seed = {e.spec.seed: e.win_rate for e in plain}
    return [by_seed[e.spec.seed] for e in hinted if e.spec.seed in by_seed]


def paired_plays(plain: list[Episode], hinted: list[Episode]) -> tuple[list[float], list[float]]:
    """``(hint rates, matched plain rates)`` of the hint plays that have a plain twin."""
    seeds = {e.spec.seed for e in plain}
    kept = [e for e in hinted if e.spec.seed in seeds]
    return [e.win_rate for e in kept], matched_plain(plain, kept)


class Run:
    """A run's resources and state; ``iteration()`` runs one iteration of the algorithm.

    Everything opened here is registered on ``resources`` and closed, in reverse order,
    however the run ends.
    """

    def __init__(
        self,
        config: TrainConfig,
        workspace: Path,
        checkpoint: Path | None,
        resources: contextlib.ExitStack,
    ):
        from spadegym.corpus.documents import load_corpus
        from spadegym.memory import EnvironmentMemory, embedder_from_name

        self.config = config
        self.workspace = workspace
        self.spade = config.mode == "spade"
        # Started first: its workers and one-off imports overlap the model's loading.
        self.validator = (
            resources.enter_context(
                Validator(
                    config.validation,
                    workers=config.design.validation_workers,
                    executor=config.play.executor,
                )
            )
            if self.spade
            else None
        )
        with quiet_model_loading():
            self.policy = load_policy(config, workspace)
        if config.logging.console:  # what generation may take, beside the weights (footprint)
            value_bytes = torch.finfo(compute_dtype(config, self.policy.device)).bits // 8
            print(footprint.describe(config, self.policy.model.config, value_bytes), flush=True)
        self.optimizer = make_optimizer(config, self.policy.lora_parameters())
        self.state = ckpt.RunState(sampler=random.Random(config.seed).getstate())
        if checkpoint is not None:
            self.state = ckpt.load_checkpoint(checkpoint, self.policy, self.optimizer)
        self.engine = make_engine(config, self.policy, str(workspace))
        resources.callback(self.engine.close)
        self.tokenizer = self.policy.tokenizer
        self.solver = engine_solver(config, self.engine, self.tokenizer)
        self.eval_solver = engine_solver(config, self.engine, self.tokenizer, evaluation=True)
        self.hinter = make_hinter(config, self.engine, self.tokenizer)
        self.logger = MetricsLogger(workspace, config)
        resources.callback(self.logger.close)
        self.logger.truncate(self.state.iteration)
        self.designs = workspace / "designs.jsonl"
        truncate_jsonl(self.designs, self.state.iteration)
        self.memory = None
        if self.spade:
            self.memory = EnvironmentMemory(
                workspace / "memory",
                embedder_from_name(config.design.memory_embedder),
                dedup=config.dedup,
            )
            resources.callback(self.memory.close)
        self.corpus = load_corpus(config.design.corpus) if self.spade else None
        # The run's own registry, where accepted programs go and examples are read from.
        self.registry = Registry(workspace / "registry")
        self.registered: set[str] = set()
        if self.spade and config.logging.console:
            problem = prompt_budget_problem(config, self.tokenizer, self.corpus)
            print(f"warning: {problem}" if problem else "design prompts fit", flush=True)
        self.recorded = recorded_replies(config.design.scripted)
        self.train_envs, eval_envs = select_library(config)
        self.baselines = RoleBaselines(config.rewards.rae_decay)
        if self.state.baselines:
            self.baselines.load_state_dict(self.state.baselines)
        self.sampler = random.Random()
        self.sampler.setstate(self.state.sampler)
        self.sandbox = open_episode_pool(
            config.play.executor, config.play.sandbox_workers, config.sandbox
        )
        resources.callback(self.sandbox.close)
        self.curriculum = self.open_curriculum() if config.mode == "curriculum" else None
        # The evaluation programs are loaded once, now, rather than at every evaluation.
        self.eval_pool = self.evaluation_pool(eval_envs) if config.evaluation.interval else []
        self.pending: concurrent.futures.Future | None = None
        resources.callback(self.discard_pending)
        self.background = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        resources.callback(self.background.shutdown, wait=True)

    # -- one iteration -----------------------------------------------------------------------

    def iteration(self) -> dict[str, float]:
        """Run the next iteration; returns its metrics."""
        config, state = self.config, self.state
        it = state.iteration
        watch = Stopwatch()
        metrics: dict[str, float] = {}
        regeneration = it % config.pool.regen_interval == 0
        window_end = (it + 1) % config.pool.regen_interval == 0

        # 1. A new pool at the start of each window.
        if regeneration:
            metrics.update(self.new_pool(it, watch))
        # 2. Play: K plain plays per environment, K hint plays when hint plays are due.
        with_hints = config.play.hint_plays == "iteration" or (
            config.play.hint_plays == "regeneration" and regeneration
        )
        episodes = self.play(it, with_hints, watch)
        # 3. Outcomes: the memory's statistics and the designer's window.
        metrics.update(self.record(episodes, it))
        if self.curriculum is not None:  # the curriculum learns from the same plays
            with watch("curriculum"):
                record_plays(self.curriculum, state.pool, episodes)
                metrics.update(self.curriculum.metrics())
            state.curriculum = self.curriculum.state_dict()
        # 4. Solver advantages.
        samples, trajectories = self.solver_samples(episodes)
        # 5. Designer rewards, only at a window's end (so updates do not depend on where a
        #    run stops and resumes).
        if self.spade and window_end and state.candidates:
            designer, designer_metrics = self.designer_samples(trajectories)
            samples += designer
            metrics.update(designer_metrics)
        # 6. Update the LoRA weights, and let the engine see them.
        self.say(f"update: {len(samples)} sample(s)")
        with watch("update"):
            metrics.update(update(self.policy, self.optimizer, samples, config))
            self.engine.sync(it + 1)
        # 7. At a window's end, the next window's first attempts (validated in the
        #    background during step 8). Written even in a run's last window: a run extended
        #    later then continues exactly as if it had never stopped.
        if self.spade and window_end and not config.design.async_regeneration:
            with watch("designer"):
                self.write_ahead(state.regeneration)
        # 8. Evaluation, metrics, checkpoint.
        if (
            config.evaluation.interval
            and (it + 1) % config.evaluation.interval == 0
            and self.eval_pool
        ):
            with watch("eval"):
                metrics.update(self.evaluate(watch))
        metrics.update(watch.metrics())
        self.logger.log(it, metrics)
        state.iteration = it + 1
        state.baselines = self.baselines.state_dict()
        state.sampler = self.sampler.getstate()
        if (
            state.iteration % config.logging.checkpoint_interval == 0
            or state.iteration == config.iterations
        ):
            ckpt.save_checkpoint(self.workspace, state, self.policy, self.optimizer, self.memory)
        return metrics

    def open_curriculum(self) -> Curriculum:
        """``mode=curriculum``'s sampler over the training environments, restored on resume.

        Each (environment, difficulty) floor is measured on seeds of an iteration training
        never plays (-3), the first time the pair becomes active.
        """
        config = self.config
        self.curriculum_envs = describe(self.sandbox, self.train_envs)

        def seeds(key: str) -> list[int]:
            count = config.curriculum.floor_plays
            return [episode_seed(config.seed, -3, key, k) for k in range(count)]

        measure = floor_measurer(
            self.curriculum_envs, self.sandbox, seeds, config.play.max_episode_turns
        )
        curriculum = Curriculum(
            [env.key for env in self.curriculum_envs],
            config.curriculum,
            measure,
        )
        curriculum.load_state_dict(self.state.curriculum)
        return curriculum

    def discard_pending(self) -> None:
        """Kill the sandboxes of a background validation no window took (the run ended)."""
        if self.pending is not None and self.pending.done() and not self.pending.exception():
            self.pending.result().discard()

    # -- 1. the pool ---------------------------------------------------------------------------

    def new_pool(self, it: int, watch: Stopwatch) -> dict[str, float]:
        """The window's pool: the designer's accepted programs, or a draw from the registry."""
        config, state = self.config, self.state
        metrics: dict[str, float] = {}
        if self.curriculum is not None:
            with watch("curriculum"):
                state.pool = curriculum_pool(
                    self.curriculum,
                    self.curriculum_envs,
                    config.pool.size,
                    config.play.plays_per_env,
                    self.sampler,
                )
            state.regeneration += 1
            return metrics
        if not self.spade:
            with watch("validation"):
                chosen = self.sampler.sample(
                    self.train_envs, min(config.pool.size, len(self.train_envs))
                )
                state.pool = describe(self.sandbox, chosen)
            state.regeneration += 1
            return metrics
        with watch("designer"):
            candidates = state.next_candidates or self.draft(
                first_requests(config, state.regeneration), 1, state.regeneration
            )
        self.say(f"validation: {len(candidates)} candidate(s)")
        with watch("validation"):
            if self.pending is not None:  # validated in the background meanwhile
                reports = self.pending.result()
            else:
                reports = validate_round(
                    self.designs_validator(),
                    candidates,
                    find_copies(candidates, self.memory),
                    self.memory,
                )
            self.pending = None
            state.next_candidates = []
            accepted, validation = self.commit(candidates, reports, it)
        _sum_into(metrics, validation)
        # Failed slots are written again from fresh documents, validated at once.
        for attempt in range(2, config.design.attempts + 1):
            requests = retry_requests(candidates, config.design.attempts)
            if not requests:
                break
            with watch("designer"):
                retry = self.draft(requests, attempt, state.regeneration)
            with watch("validation"):
                reports = validate_round(
                    self.designs_validator(), retry, find_copies(retry, self.memory)
                )
                more, validation = self.commit(retry, reports, it)
            candidates += retry
            accepted += more
            _sum_into(metrics, validation)
        metrics["validate/accept_rate"] = metrics["validate/accepted"] / max(
            1.0, metrics["validate/candidates"]
        )
        state.candidates = candidates
        state.plays = [Plays() for _ in candidates]
        position = {id(c): k for k, c in enumerate(candidates)}
        state.pool = [pool_entry(c, r, position[id(c)]) for c, r in accepted[: config.pool.size]]
        step_budget = config.validation.step_budget
        for _, report in accepted:  # the watchdog holds each to what validation measured
            expect_report(self.sandbox, report, step_budget)
        metrics["designer/pool_size"] = float(len(state.pool))
        metrics["designer/attempts"] = float(sum(not c.scripted for c in candidates))
        # With async regeneration the next window's are written now, a whole window ahead
        # (and, as in step 7, even in a run's last window).
        if config.design.async_regeneration:
            with watch("designer"):
                self.write_ahead(state.regeneration + 1)
        state.regeneration += 1
        return metrics

    def say(self, text: str) -> None:
        """A progress line for a long phase (``console``), so a slow machine shows life."""
        if self.config.logging.console:
            print(f"[iteration {self.state.iteration}] {text}", flush=True)

    def draft(
        self, requests: list[tuple[int, str]], attempt: int, regeneration: int
    ) -> list[Candidate]:
        """Write one attempt of ``requests``, with the learner's log-probs at generation time."""
        config = self.config
        self.say(f"designer: writing {len(requests)} program(s), attempt {attempt}")
        assert self.corpus is not None, "spade mode loads a corpus"
        candidates = write_candidates(
            config,
            self.engine,
            self.tokenizer,
            self.corpus,
            self.memory,
            self.registry,
            self.sampler,
            requests,
            attempt,
            self.recorded,
            regeneration,
        )
        # Recorded replies have no tokens: they never train.
        sampled = [c.tokens for c in candidates if c.tokens is not None and not c.scripted]
        drafts = [Sample("designer", t.prompt_ids, t.response_ids, 1.0) for t in sampled]
        fill_old_logprobs(
            self.policy, drafts, config.ppo.micro_batch_size, config.generation.temperature
        )
        for tokens, draft in zip(sampled, drafts, strict=True):
            tokens.old_logprobs = draft.old_logprobs
        return candidates

    def designs_validator(self) -> Validator:
        """The validator of the designer's programs (``spade`` mode: the others design none)."""
        if self.validator is None:
            raise RuntimeError(f"mode={self.config.mode} validates no designs")
        return self.validator

    def write_ahead(self, regeneration: int) -> None:
        """Write a later window's first attempts now and validate them in the background."""
        candidates = self.draft(first_requests(self.config, regeneration), 1, regeneration)
        self.state.next_candidates = candidates
        self.pending = self.background.submit(
            validate_round,
            self.designs_validator(),
            candidates,
            find_copies(candidates, self.memory),
            self.memory,
        )

    def commit(
        self, candidates: list[Candidate], validated: Validated, it: int
    ) -> tuple[list[tuple[Candidate, Any]], dict[str, float]]:
        """Register the accepted candidates and log every one to ``designs.jsonl``."""
        accepted = commit_round(
            candidates,
            validated,
            self.registry,
            self.memory,
            self.registered,
            {"iteration": it},
        )
        metrics = round_metrics(candidates, validated)
        with self.designs.open("a", encoding="utf-8") as log:
            for c in candidates:
                record = {
                    "iteration": it,
                    "regeneration": self.state.regeneration,
                    "slot": c.index,
                    "attempt": c.attempt,
                    "skill": c.skill,
                    "difficulty": c.difficulty,
                    "scripted": c.scripted,
                    "shown": c.shown,
                    "valid": c.accepted,
                    "status": c.status,
                    "env_key": c.env_id.rsplit("/", 1)[-1] if c.env_id else None,
                    "feedback": c.reason[:300],
                }
                log.write(json.dumps(record) + "\n")
        return accepted, metrics

    # -- 2-3. play and record ------------------------------------------------------------------

    def specs(
        self, pool: list[PoolEnv], iteration: int, plays: int, with_hints: bool, evaluation=False
    ) -> list[EpisodeSpec]:
        """K plain plays per environment, and K hint plays on the same seeds when asked.

        Training plays share seeds in runs of ``plays_per_seed``; evaluation plays never do.
        """
        config = self.config
        source: HintSource = "hinter" if config.play.hint_source == "hinter" else "program"
        specs = []
        for env in pool:
            difficulty = env.difficulty or config.play.solver_difficulty
            options = {"difficulty": difficulty} if difficulty else None
            turns = min(env.max_turns, config.play.max_episode_turns)
            count = plays if env.plays is None else env.plays
            shared = 1 if evaluation else config.play.plays_per_seed
            seeds = [
                episode_seed(config.seed, iteration, env.key, k // shared, evaluation)
                for k in range(count)
            ]
            specs += [EpisodeSpec(env.key, env.source, s, options, turns) for s in seeds]
            if with_hints and (source == "hinter" or env.has_hint):
                specs += [
                    EpisodeSpec(env.key, env.source, s, options, turns, hint_source=source)
                    for s in seeds
                ]
        return specs

    def play(self, it: int, with_hints: bool, watch: Stopwatch) -> list[Episode]:
        """Every pool environment's plays of this iteration."""
        specs = self.specs(self.state.pool, it, self.config.play.plays_per_env, with_hints)
        hinted = sum(s.hint_play for s in specs)
        self.say(f"solver: {len(specs)} episode(s), {hinted} hinted, {len(self.state.pool)} env(s)")
        clock: dict[str, float] = {}
        episodes = play_episodes(
            specs,
            self.sandbox,
            self.solver,
            history_turns=self.config.play.history_turns,
            hinter=self.hinter,
            timings=clock,
        )
        watch.add("episodes_env", clock.get("env", 0.0))
        watch.add("episodes_model", clock.get("model", 0.0))
        self.log_episodes(episodes, it)
        return episodes

    def log_episodes(self, episodes: list[Episode], it: int) -> None:
        """Write ``logging.log_episodes`` of them to ``episodes.jsonl``, environments in turn."""
        if self.config.logging.log_episodes <= 0:
            return
        by_env: dict[str, list[Episode]] = {}
        for episode in episodes:
            if not episode.dropped:
                by_env.setdefault(episode.spec.env_key, []).append(episode)
        chosen = [e for round_ in itertools.zip_longest(*by_env.values()) for e in round_ if e]
        with (self.workspace / "episodes.jsonl").open("a", encoding="utf-8") as log:
            for episode in chosen[: self.config.logging.log_episodes]:
                record = {
                    "iteration": it,
                    "env": episode.spec.env_key,
                    "seed": episode.spec.seed,
                    "hint": episode.hint,
                    "outcome": episode.outcome,
                    "error": episode.error,
                    "turns": [
                        {
                            "seat": t.seat,
                            "observation": t.messages[-1]["content"],
                            "reply": t.reply.text,
                        }
                        for t in episode.turns
                    ],
                }
                log.write(json.dumps(record) + "\n")

    def record(self, episodes: list[Episode], it: int) -> dict[str, float]:
        """Win rates to the memory and the designer's window; the ``solver/`` metrics."""
        played = [e for e in episodes if not e.dropped]
        plain = [e for e in played if not e.spec.hint_play]
        hinted = [e for e in played if e.spec.hint_play]
        quarantined = quarantined_keys(played)
        floors = {env.key: env.floor for env in self.state.pool}
        for env in self.state.pool:
            mine = [e for e in plain if e.spec.env_key == env.key]
            ours = [e.win_rate for e in mine]
            theirs, matched = paired_plays(mine, [e for e in hinted if e.spec.env_key == env.key])
            failed = any(e.error for e in played if e.spec.env_key == env.key)
            if self.memory is not None and (ours or theirs):
                self.memory.record_plays(self.memory_id(env), plain=ours, hint=theirs, step=it)
            if env.candidate is not None:
                plays = self.state.plays[env.candidate]
                plays.plain += ours
                plays.hint += theirs
                plays.matched += matched
                plays.failed = plays.failed or failed
        one_player = [e for e in plain if e.num_players == 1]
        one_hinted = [e for e in hinted if e.num_players == 1]
        metrics = {
            "solver/envs": float(len(self.state.pool)),
            "solver/episodes": float(len(played)),
            "solver/win_rate": mean([e.outcome[0] for e in one_player]),
            # Against each environment's chance floor: 0 is what a shortcut earns.
            "solver/win_rate_adjusted": mean(
                [chance_adjusted(e.outcome[0], floors.get(e.spec.env_key)) for e in one_player]
            ),
            "solver/hint_win_rate_adjusted": mean(
                [chance_adjusted(e.outcome[0], floors.get(e.spec.env_key)) for e in one_hinted]
            ),
            "solver/solve_rate": solve_rate([e.outcome[0] for e in one_player]),
            "solver/hint_win_rate": mean([e.outcome[0] for e in one_hinted]),
            "solver/turns": mean([float(e.steps) for e in played]),
            "solver/env_errors": float(sum(e.error is not None for e in played)),
        }
        if self.hinter is not None:
            metrics.update(self.hinter.counts.take())
        # Quarantined programs are played no more (their candidates stay ``failed``).
        self.state.pool = [env for env in self.state.pool if env.key not in quarantined]
        if self.spade:  # fixed mode validates nothing and logs no validate/ metrics
            metrics["validate/quarantined"] = float(len(quarantined))
        return metrics

    def memory_id(self, env: PoolEnv) -> str:
        """The id the memory knows a pool environment by: its candidate's registry id."""
        if env.candidate is None:
            return env.key
        return self.state.candidates[env.candidate].env_id or env.key

    # -- 4-5. advantages -----------------------------------------------------------------------

    def solver_samples(self, episodes: list[Episode]) -> tuple[list[Sample], int]:
        """Samples of the plain plays: GRPO z-scores per environment, RAE for two-player games.

        Episodes that ended in an environment failure are left out: the failure is the
        program's, and its designer is penalised instead. Hint plays never train.

        Returns:
            The samples (one per turn) and the number of episodes they come from.
        """
        played = [e for e in episodes if not e.spec.hint_play and e.error is None and e.turns]
        single = [e for e in played if e.num_players == 1]
        per_seed = self.config.play.plays_per_seed > 1
        advantages = solver_advantages(
            [e.outcome[0] for e in single],
            [(e.spec.env_key, e.spec.seed) if per_seed else e.spec.env_key for e in single],
        )
        samples = [
            _sample(t.reply.data, a)
            for e, a in zip(single, advantages, strict=True)
            for t in e.turns
        ]
        for episode in (e for e in played if e.num_players == 2):
            seats = self.baselines.advantages(episode.spec.env_key, episode.outcome)
            samples += [_sample(t.reply.data, seats[t.seat]) for t in episode.turns]
        return samples, len(played)

    def designer_samples(self, trajectories: int) -> tuple[list[Sample], dict[str, float]]:
        """Rewards of the window's candidates, centred per skill, scaled (SPADE).

        ``trajectories``: the solver episodes trained this iteration (the scale's numerator).

        Valid candidates never played (beyond the pool's size) are left out: they have no
        reward. One dropped from the pool after failing in play (quarantined) is scored.
        Recorded (scripted) programs, which the model never sampled, count in their skill's
        baseline but are not samples: so a model whose designs all fail still gets a gradient
        (its 0 against the recorded programs' rewards). Regret compares each hint play with the
        plain play of its own iteration and seed.
        """
        config, state = self.config, self.state
        in_pool = {env.candidate for env in state.pool}
        window = list(zip(state.candidates, state.plays, strict=True))
        # What played this window: the pool, and programs dropped from it after failing.
        pooled = [
            (c, p) for k, (c, p) in enumerate(window) if k in in_pool or (c.accepted and p.failed)
        ]
        # Recorded programs play in the pool and count in their skill's baseline, but the
        # model never wrote them: they are not trained on.
        rated = [
            (c, p)
            for k, (c, p) in enumerate(window)
            if (not c.accepted and not c.scripted) or k in in_pool or (c.accepted and p.failed)
        ]
        rewards = [
            designer_reward(
                config.rewards.designer_reward,
                p.plain,
                p.hint,
                matched=p.matched,
                floor=c.floor,
                adjusted=config.rewards.chance_adjusted,
                valid=c.accepted,
                failed=p.failed,
                invalid_reward=config.rewards.invalid_reward,
                timeout_penalty=config.rewards.timeout_penalty,
            )
            for c, p in rated
        ]
        trained = [not c.scripted for c, _ in rated]
        scored = [c for (c, _), t in zip(rated, trained, strict=True) if t]
        scale = 1.0
        if config.ppo.loss_aggregation == "token_mean":
            scale = designer_scale(
                trajectories,
                len(scored),
                config.pool.regen_interval,
                config.rewards.designer_scale_cap,
            )
        advantages = designer_advantages(rewards, [c.skill for c, _ in rated], scale)
        samples = [
            _designer_sample(c, a)
            for (c, _), a, t in zip(rated, advantages, trained, strict=True)
            if t
        ]
        metrics = _designer_metrics(
            scored, [r for r, t in zip(rewards, trained, strict=True) if t], pooled
        )
        metrics["designer/advantage_scale"] = scale
        metrics["designer/advantage_abs"] = mean(
            [abs(a) for a, t in zip(advantages, trained, strict=True) if t]
        )
        metrics["designer/hint_pairs"] = float(sum(len(p.matched) for _, p in pooled))
        return samples, metrics

    # -- 8. evaluation -------------------------------------------------------------------------

    def evaluation_pool(self, envs: list[LibraryEnv]) -> list[PoolEnv]:
        """The first ``evaluation.envs`` one-player environments that load.

        Two-player games are left out: with the model in both seats their mean is zero by
        construction.
        """
        pool = [e for e in describe(self.sandbox, envs) if e.num_players == 1]
        return pool[: self.config.evaluation.envs]

    def evaluation_episodes(self, plays: int, watch: Stopwatch | None = None) -> list[Episode]:
        """``plays`` plain plays per evaluation environment, on seeds training never draws."""
        specs = self.specs(self.eval_pool, -1, plays, False, evaluation=True)
        clock: dict[str, float] = {}
        episodes = play_episodes(
            specs,
            self.sandbox,
            self.eval_solver,
            history_turns=self.config.play.history_turns,
            timings=clock,
        )
        if watch is not None:
            watch.add("eval_env", clock.get("env", 0.0))
        return episodes

    def evaluate(self, watch: Stopwatch) -> dict[str, float]:
        """The periodic evaluation's metrics (``evaluation.plays`` per environment)."""
        outcomes = [
            e.outcome[0] for e in self.evaluation_episodes(self.config.evaluation.plays, watch)
        ]
        return {
            "solver/eval_win_rate": mean(outcomes),
            "solver/eval_solve_rate": solve_rate(outcomes),
            "solver/eval_envs": float(len(self.eval_pool)),
        }


def quarantined_keys(episodes: list[Episode]) -> set[str]:
    """The environments whose play ended in a watchdog quarantine (``spadegym.sandbox``)."""
    return {e.spec.env_key for e in episodes if e.error_kind == "quarantined"}


def _designer_sample(candidate: Candidate, advantage: float) -> Sample:
    """A designer sample from a candidate the model wrote (its tokens)."""
    tokens = candidate.tokens
    assert tokens is not None, "a candidate the model wrote has its tokens"
    return Sample(
        "designer",
        tokens.prompt_ids,
        tokens.response_ids,
        advantage,
        tokens.old_logprobs,
        tokens.engine_logprobs,
    )


def _sample(completion: Completion, advantage: float) -> Sample:
    """A solver sample from an engine completion."""
    return Sample(
        "solver",
        completion.prompt_ids,
        completion.response_ids,
        advantage,
        engine_logprobs=completion.logprobs,
    )


def train(config: TrainConfig) -> list[dict[str, float]]:
    """Run (or resume) ``config.iterations`` iterations and return each one's metrics."""
    workspace, checkpoint = ckpt.prepare_workspace(config)
    seed_everything(config.seed)
    if config.model.torch_threads:
        torch.set_num_threads(config.model.torch_threads)
    history: list[dict[str, float]] = []
    with contextlib.ExitStack() as resources:  # closed in reverse order, however the run ends
        # The run's registry is its workspace's: the user's own environments neither shadow
        # the run's nor flood it with warnings, and other runs' registrations are not seen.
        resources.enter_context(use_home(workspace))
        run = Run(config, workspace, checkpoint, resources)
        while run.state.iteration < config.iterations:
            history.append(run.iteration())
    return history


def evaluate_run(config: TrainConfig, plays: int) -> dict[str, list[float]]:
    """Play a run's latest weights on its evaluation pool, on the evaluation seeds.

    Before the run's first checkpoint that is the base model. Each environment gets
    ``plays`` plain plays (seeds training never draws; the same seeds for every run of one
    ``seed``, so runs can be compared play for play).

    Returns:
        Environment id -> outcomes, in seed order (the same seeds for every run of a seed).
    """
    workspace = Path(config.workspace)
    workspace.mkdir(parents=True, exist_ok=True)
    checkpoint = ckpt.latest_checkpoint(workspace)
    seed_everything(config.seed)
    if config.model.torch_threads:
        torch.set_num_threads(config.model.torch_threads)
    outcomes: dict[str, list[float]] = {}
    with contextlib.ExitStack() as resources:
        resources.enter_context(use_home(workspace))
        run = Run(config, workspace, checkpoint, resources)
        for episode in run.evaluation_episodes(plays):
            outcomes.setdefault(episode.spec.env_key, []).append(episode.outcome[0])
    return outcomes
