"""The self-play loop, top to bottom in the order it runs.

Each iteration: (1) at the start of a window of ``regen_interval`` iterations, the designer's
candidates are validated, deduplicated and registered (``spade``), or a pool is drawn from the
registry (``fixed``); (2) the solver plays every pool environment K times
without the hint and, in ``spade`` mode, K times with it; (3) outcomes go to the memory and to
the designer's window; (4) solver advantages: z-scores per environment, RAE for two-player
games; (5) at the end of a window, designer rewards centred per skill; (6) one clipped
policy-gradient update of the LoRA weights; (6b) at a window's end, the designer writes the
next window's candidates, which are validated in the background during (7) evaluation,
metrics and the checkpoint. The first window's candidates are written at its start;
``async_regeneration`` writes each window's a whole window ahead instead.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spadegym.errors import ConfigError, ProgramError
from spadegym.sandbox import SandboxPool
from spadegym.validation import Validator
from spadegym_train import checkpoint as ckpt
from spadegym_train.advantages import RoleBaselines, designer_advantages, solver_advantages
from spadegym_train.config import TrainConfig, to_dict
from spadegym_train.design import (
    Candidate,
    PoolEnv,
    commit,
    find_copies,
    recorded_replies,
    validate_candidates,
    validation_config,
    write_candidates,
    write_hints,
)
from spadegym_train.engines import make_engine
from spadegym_train.episodes import Episode, EpisodeSpec, open_episode_pool, play_episodes
from spadegym_train.library import LibraryEnv, read_library, split_library
from spadegym_train.loss import Sample, fill_old_logprobs, make_optimizer, update
from spadegym_train.metrics import MetricsLogger
from spadegym_train.model import load_policy
from spadegym_train.rewards import designer_reward, mean, regret, solve_rate


def seed_everything(seed: int) -> None:
    """Seed torch, numpy and random."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def episode_seed(run_seed: int, iteration: int, env_key: str, play: int) -> int:
    """The reset seed of a play.

    Plain and hint plays share seeds, so regret compares like with like.
    """
    return random.Random(f"{run_seed}:{iteration}:{env_key}:{play}").randrange(2**31)


def describe(sandbox: SandboxPool, env: LibraryEnv) -> PoolEnv | None:
    """A registry environment as a pool entry (``None`` if it no longer loads)."""
    try:
        info = sandbox.describe(env.source, env.env_id)
    except ProgramError:
        return None
    return PoolEnv(
        env.env_id,
        env.source,
        info.skill or "",
        info.num_players or 1,
        info.max_turns or 1,
        has_hint=info.has_hint,
    )


def episode_specs(
    config: TrainConfig, pool: list[PoolEnv], iteration: int, plays: int, with_hints: bool
) -> list[EpisodeSpec]:
    """K plain plays per environment, and K hint plays where a hint exists."""
    specs = []
    for env in pool:
        turns = min(env.max_turns, config.max_episode_turns)
        seeds = [episode_seed(config.seed, iteration, env.key, k) for k in range(plays)]
        for seed in seeds:
            specs.append(
                EpisodeSpec(env.key, env.source, seed, None, False, turns, env.num_players)
            )
        if with_hints and (env.has_hint or env.hint):
            for seed in seeds:
                specs.append(
                    EpisodeSpec(
                        env.key, env.source, seed, env.hint, env.has_hint, turns, env.num_players
                    )
                )
    return specs


def solver_samples(episodes: list[Episode], baselines: RoleBaselines) -> list[Sample]:
    """Samples of the plain plays: GRPO z-scores per environment, RAE for two-player games.

    Episodes that ended in an environment failure are left out: the failure is the program's,
    and its designer is penalised instead.
    """
    played = [e for e in episodes if e.error is None and e.turns]
    single = [e for e in played if e.spec.num_players == 1]
    advantages = solver_advantages([e.outcome[0] for e in single], [e.spec.env_key for e in single])
    samples = [
        Sample("solver", t.prompt_ids, t.response_ids, a)
        for e, a in zip(single, advantages, strict=True)
        for t in e.turns
    ]
    for episode in (e for e in played if e.spec.num_players == 2):
        seat_advantages = baselines.advantages(episode.spec.env_key, episode.outcome)
        samples += [
            Sample("solver", t.prompt_ids, t.response_ids, seat_advantages[t.seat])
            for t in episode.turns
        ]
    return samples


def draft_candidates(
    config: TrainConfig,
    policy: Any,
    engine: Any,
    tokenizer: Any,
    corpus: Any,
    memory: Any,
    sampler: random.Random,
    regeneration: int,
    recorded: list[str],
) -> list[Candidate]:
    """The designer's candidates for a regeneration, with their generation-time log-probs."""
    candidates = write_candidates(
        config, engine, tokenizer, corpus, memory, sampler, regeneration, recorded
    )
    drafts = [Sample("designer", c.prompt_ids, c.response_ids, 1.0) for c in candidates]
    fill_old_logprobs(policy, drafts, config.micro_batch_size, config.temperature)
    for candidate, draft in zip(candidates, drafts, strict=True):
        candidate.old_logprobs = draft.old_logprobs
    return candidates


def designer_samples(
    config: TrainConfig, candidates: list[Candidate], pool: list[PoolEnv]
) -> tuple[list[Sample], dict[str, float]]:
    """Rewards of the window's candidates, centred per skill.

    Valid candidates never played (beyond the pool's size) are left out: they have no reward.
    """
    in_pool = {env.candidate for env in pool}
    scored = [(k, c) for k, c in enumerate(candidates) if not c.valid or k in in_pool]
    rewards = [
        designer_reward(
            config.designer_reward,
            c.plain,
            c.hint,
            valid=c.valid,
            failed=c.failed,
            invalid_penalty=config.invalid_penalty,
            timeout_penalty=config.timeout_penalty,
        )
        for _, c in scored
    ]
    advantages = designer_advantages(rewards, [c.skill for _, c in scored])
    samples = [
        Sample("designer", c.prompt_ids, c.response_ids, a, c.old_logprobs)
        for (_, c), a in zip(scored, advantages, strict=True)
    ]
    played = [c for _, c in scored if c.valid]
    metrics = {
        "designer/reward": mean(rewards),
        "designer/candidates": float(len(scored)),
        "designer/valid_rate": mean([1.0 if c.valid else 0.0 for _, c in scored]),
        "designer/regret": mean([regret(c.plain, c.hint) for c in played]),
        "designer/solver_win_rate": mean([mean(c.plain) for c in played]),
        "designer/failed_envs": float(sum(c.failed for c in played)),
    }
    return samples, metrics


def _prepare_workspace(config: TrainConfig) -> tuple[Path, Path | None]:
    import shutil

    import yaml

    workspace = Path(config.workspace)
    checkpoint = ckpt.latest_checkpoint(workspace) if config.resume else None
    if checkpoint is None and (workspace / "checkpoints").exists() and not config.resume:
        raise ConfigError(
            f"workspace {workspace} holds a run; set resume=true to continue it "
            "or choose another workspace."
        )
    workspace.mkdir(parents=True, exist_ok=True)
    if checkpoint is not None:
        ckpt.restore_files(checkpoint, workspace)
    else:  # leftovers of a run that stopped before its first checkpoint
        for name in ("memory", "registry", "tb"):
            shutil.rmtree(workspace / name, ignore_errors=True)
        (workspace / "metrics.jsonl").unlink(missing_ok=True)
    (workspace / "config.yaml").write_text(yaml.safe_dump(to_dict(config)), encoding="utf-8")
    return workspace, checkpoint


def train(config: TrainConfig) -> list[dict[str, float]]:
    """Run (or resume) ``config.iterations`` iterations and return each one's metrics."""
    from spadegym.corpus.documents import load_corpus
    from spadegym.memory import EnvironmentMemory, embedder_from_name

    workspace, checkpoint = _prepare_workspace(config)
    seed_everything(config.seed)
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    spade = config.mode == "spade"
    with contextlib.ExitStack() as resources:  # closed in reverse order, however the run ends
        # Started first: its workers and one-off imports overlap the model's loading.
        validator = (
            resources.enter_context(
                Validator(
                    validation_config(config),
                    workers=config.validation_workers,
                    executor=config.executor,
                )
            )
            if spade
            else None
        )
        policy = load_policy(config, workspace)
        optimizer = make_optimizer(config, policy.lora_parameters())
        state = ckpt.RunState(sampler=random.Random(config.seed).getstate())
        if checkpoint is not None:
            state = ckpt.load_checkpoint(checkpoint, policy, optimizer)
        engine = make_engine(config, policy, str(workspace))
        resources.callback(engine.close)
        logger = MetricsLogger(workspace, config)
        resources.callback(logger.close)
        logger.truncate(state.iteration)
        memory = None
        if spade:
            memory = EnvironmentMemory(
                workspace / "memory", embedder_from_name(config.memory_embedder)
            )
            resources.callback(memory.close)
        corpus = load_corpus(config.corpus) if spade else None
        recorded = recorded_replies(config.scripted_designer)
        train_envs, eval_envs = split_library(read_library(config.registry), config.eval_fraction)
        baselines = RoleBaselines(config.rae_decay)
        if state.baselines:
            baselines.load_state_dict(state.baselines)
        sampler = random.Random()
        sampler.setstate(state.sampler)
        sandbox = open_episode_pool(config.executor, config.sandbox_workers)
        resources.callback(sandbox.close)
        # The held-out programs are loaded once, now, rather than at every evaluation.
        eval_pool = evaluation_pool(config, eval_envs, sandbox) if config.eval_interval else []
        tokenizer = policy.tokenizer
        history: list[dict[str, float]] = []
        background = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        resources.callback(background.shutdown, wait=True)
        pending: concurrent.futures.Future | None = None

        def write_ahead(regeneration: int) -> concurrent.futures.Future:
            """Write a later window's candidates now and validate them in the background."""
            state.next_candidates = draft_candidates(
                config, policy, engine, tokenizer, corpus, memory, sampler, regeneration, recorded
            )
            return background.submit(
                validate_candidates,
                validator,
                state.next_candidates,
                find_copies(state.next_candidates, memory),
            )

        while state.iteration < config.iterations:
            it = state.iteration
            started = time.perf_counter()
            timings: dict[str, float] = {}
            metrics: dict[str, float] = {}

            # 1. A new pool at the start of each window.
            if it % config.regen_interval == 0:
                clock = time.perf_counter()
                if spade:
                    if state.next_candidates:  # written during the previous window
                        candidates = state.next_candidates
                    else:
                        candidates = draft_candidates(
                            config,
                            policy,
                            engine,
                            tokenizer,
                            corpus,
                            memory,
                            sampler,
                            state.regeneration,
                            recorded,
                        )
                    timings["designer"] = time.perf_counter() - clock
                    clock = time.perf_counter()
                    if pending is not None:  # validated in the background meanwhile
                        reports = pending.result()
                    else:
                        reports = validate_candidates(
                            validator, candidates, find_copies(candidates, memory)
                        )
                    pending = None
                    state.next_candidates = []
                    accepted, validation = commit(
                        config, candidates, reports, memory, workspace / "registry", it
                    )
                    metrics.update(validation)
                    timings["validation"] = time.perf_counter() - clock
                    clock = time.perf_counter()
                    state.candidates = candidates
                    position = {id(c): k for k, c in enumerate(candidates)}
                    state.pool = [
                        PoolEnv(
                            c.env_key,
                            report.program,
                            c.skill,
                            report.properties.get("num_players") or 1,
                            report.properties["max_turns"],
                            has_hint=report.properties.get("hint") is not None,
                            candidate=position[id(c)],
                        )
                        for c, report in accepted[: config.pool_size]
                    ]
                    metrics["designer/hints_written"] = float(
                        write_hints(config, engine, tokenizer, state.pool)
                    )
                    timings["designer"] += time.perf_counter() - clock
                    # With async regeneration the next window's are written now, a whole
                    # window ahead (and, as in 6b, even in a run's last window).
                    if config.async_regeneration:
                        clock = time.perf_counter()
                        pending = write_ahead(state.regeneration + 1)
                        timings["designer"] += time.perf_counter() - clock
                else:
                    chosen = sampler.sample(train_envs, min(config.pool_size, len(train_envs)))
                    state.pool = [e for e in (describe(sandbox, c) for c in chosen) if e]
                    timings["validation"] = time.perf_counter() - clock
                state.regeneration += 1

            # 2. Play: K plain plays per environment, and K hint plays in spade mode.
            specs = episode_specs(config, state.pool, it, config.plays_per_env, spade)
            play_clock: dict[str, float] = {}
            episodes = play_episodes(
                specs,
                sandbox,
                engine,
                tokenizer,
                max_prompt_tokens=config.max_prompt_tokens,
                max_new_tokens=config.solver_max_new_tokens,
                history_turns=config.history_turns,
                template_kwargs=config.chat_template_kwargs,
                timings=play_clock,
            )
            timings["episodes_env"] = play_clock.get("env", 0.0)
            timings["episodes_model"] = play_clock.get("model", 0.0)
            plain = [e for e in episodes if not e.spec.hint and not e.spec.use_program_hint]
            hinted = [e for e in episodes if e.spec.hint or e.spec.use_program_hint]

            # 3. Outcomes: the memory's statistics and the designer's window.
            by_key = {env.key: env for env in state.pool}
            for env in state.pool:
                ours = [e.outcome[0] for e in plain if e.spec.env_key == env.key]
                theirs = [e.outcome[0] for e in hinted if e.spec.env_key == env.key and e.hinted]
                failed = any(e.error for e in episodes if e.spec.env_key == env.key)
                if memory is not None and (ours or theirs):
                    memory.record_plays(env.key, plain=ours, hint=theirs, step=it)
                if env.candidate is not None:
                    candidate = state.candidates[env.candidate]
                    candidate.plain += ours
                    candidate.hint += theirs
                    candidate.failed = candidate.failed or failed
            outcomes = [e.outcome[0] for e in plain if by_key[e.spec.env_key].num_players == 1]
            metrics.update(
                {
                    "solver/envs": float(len(state.pool)),
                    "solver/episodes": float(len(episodes)),
                    "solver/win_rate": mean(outcomes),
                    "solver/solve_rate": solve_rate(outcomes),
                    "solver/hint_win_rate": mean(
                        [e.outcome[0] for e in hinted if e.hinted and e.spec.num_players == 1]
                    ),
                    "solver/turns": mean([float(e.steps) for e in episodes]),
                    "solver/env_errors": float(sum(e.error is not None for e in episodes)),
                }
            )

            # 4-5. Advantages: the solver's every iteration, the designer's at a window's end.
            samples = solver_samples(plain, baselines)
            # Only at a window's end, so a run's updates do not depend on where it stops.
            window_end = (it + 1) % config.regen_interval == 0
            if spade and window_end and state.candidates:
                designer, designer_metrics = designer_samples(config, state.candidates, state.pool)
                samples += designer
                metrics.update(designer_metrics)

            # 6. Update the LoRA weights, and let the engine see them.
            clock = time.perf_counter()
            metrics.update(update(policy, optimizer, samples, config))
            engine.sync(it + 1)
            timings["update"] = time.perf_counter() - clock

            # 6b. At a window's end, the next window's candidates: written now, with the policy
            # and memory its start would see, and validated on a background thread while the
            # evaluation and the checkpoint run. (Written even in a run's last window: a run
            # extended later then continues exactly as if it had never stopped.)
            if spade and window_end and not config.async_regeneration:
                clock = time.perf_counter()
                pending = write_ahead(state.regeneration)
                timings["designer"] = timings.get("designer", 0.0) + time.perf_counter() - clock

            # 7. Evaluation on held-out registry environments, metrics, checkpoint.
            if config.eval_interval and (it + 1) % config.eval_interval == 0 and eval_pool:
                clock = time.perf_counter()
                eval_clock: dict[str, float] = {}
                metrics.update(evaluate(config, eval_pool, sandbox, engine, tokenizer, eval_clock))
                timings["eval"] = time.perf_counter() - clock
                timings["eval_env"] = eval_clock.get("env", 0.0)
            total = time.perf_counter() - started
            env_side = (
                timings.get("validation", 0.0)
                + timings["episodes_env"]
                + timings.get("eval_env", 0.0)
            )
            metrics.update({f"time/{k}": v for k, v in timings.items()})
            metrics.update({"time/iteration": total, "time/env_share": env_side / total})
            logger.log(it, metrics)
            history.append(metrics)
            state.iteration = it + 1
            state.baselines = baselines.state_dict()
            state.sampler = sampler.getstate()
            if (
                state.iteration % config.checkpoint_interval == 0
                or state.iteration == config.iterations
            ):
                ckpt.save_checkpoint(workspace, state, policy, optimizer, memory)
    return history


def evaluation_pool(
    config: TrainConfig, eval_envs: list[LibraryEnv], sandbox: SandboxPool
) -> list[PoolEnv]:
    """The first ``config.eval_envs`` held-out one-player environments that load.

    Two-player games are left out: with the model in both seats their mean is zero by
    construction.
    """
    pool: list[PoolEnv] = []
    for env in eval_envs:
        if len(pool) == config.eval_envs:
            break
        described = describe(sandbox, env)
        if described is not None and described.num_players == 1:
            pool.append(described)
    return pool


def evaluate(
    config: TrainConfig,
    pool: list[PoolEnv],
    sandbox: SandboxPool,
    engine: Any,
    tokenizer: Any,
    timings: dict[str, float] | None = None,
) -> dict[str, float]:
    """Plain plays on the evaluation pool, on fixed seeds.

    ``timings`` gets the ``"env"`` and ``"model"`` seconds added, as in ``play_episodes``.
    """
    specs = episode_specs(config, pool, -1, config.eval_plays, with_hints=False)
    episodes = play_episodes(
        specs,
        sandbox,
        engine,
        tokenizer,
        max_prompt_tokens=config.max_prompt_tokens,
        max_new_tokens=config.solver_max_new_tokens,
        history_turns=config.history_turns,
        template_kwargs=config.chat_template_kwargs,
        timings=timings,
    )
    outcomes = [e.outcome[0] for e in episodes]
    return {
        "solver/eval_win_rate": mean(outcomes),
        "solver/eval_solve_rate": solve_rate(outcomes),
        "solver/eval_envs": float(len(pool)),
    }
