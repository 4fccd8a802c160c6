"""The verifiers adapter: one multi-turn rollout against a scripted OpenAI-compatible model."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("verifiers")
aiohttp = pytest.importorskip("aiohttp")

import verifiers.v1 as vf  # noqa: E402

from spadegym.env import ProgramEnv  # noqa: E402
from spadegym.errors import SpadegymError  # noqa: E402
from spadegym.evaluation import solver_system_prompt  # noqa: E402
from spadegym.integrations.programs import resolve  # noqa: E402
from spadegym.integrations.verifiers import (  # noqa: E402
    TASKSET_ID,
    SpadeEnv,
    SpadeEnvConfig,
    SpadeTaskset,
)


class ScriptedModel:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that answers with scripted replies."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests: list[dict] = []

    async def chat(self, request):
        body = await request.json()
        self.requests.append(body)
        text = self.replies.pop(0) if self.replies else "I have nothing more to say."
        return aiohttp.web.json_response(
            {
                "id": f"scripted-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )

    async def __aenter__(self):
        app = aiohttp.web.Application()
        app.router.add_post("/v1/chat/completions", self.chat)
        self.runner = aiohttp.web.AppRunner(app)
        await self.runner.setup()
        site = aiohttp.web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1"
        return self

    async def __aexit__(self, *exc):
        await self.runner.cleanup()


def solution(env_id, seed):
    env = ProgramEnv(resolve(env_id)[0].source)
    try:
        env.reset(seed=seed)
        return env.solution()
    finally:
        env.close()


async def rollout(env, task, replies, monkeypatch):
    monkeypatch.setenv("SCRIPTED_MODEL_KEY", "not-a-secret")
    async with ScriptedModel(replies) as model:
        client = vf.EvalClientConfig(base_url=model.url, api_key_var="SCRIPTED_MODEL_KEY")
        ctx = vf.ModelContext(model="scripted", client=client)
        async with env.serving():
            episode = await env.run_episode(task, ctx)
    return episode, model.requests


def test_one_rollout_plays_the_episode_and_records_its_outcome(spade_ids, monkeypatch):
    lock = spade_ids["lock"]
    config = SpadeEnvConfig(taskset={"id": TASKSET_ID, "ids": [lock], "seed": 3}, workers=1)
    env = vf.load_environment(config)
    assert isinstance(env, SpadeEnv) and isinstance(env.taskset, SpadeTaskset)
    task = next(iter(env.taskset))
    assert task.data.env_id == lock and task.data.prompt is None
    (answer,) = solution(lock, task.data.seed)
    wrong = "\\boxed{999}" if answer != "\\boxed{999}" else "\\boxed{000}"
    episode, requests = asyncio.run(
        rollout(env, task, [f"Let me try {wrong}", f"Then it is {answer}"], monkeypatch)
    )
    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.rewards["outcome"].score == 1.0
    assert trace.info["episode_turns"] == 2 and trace.info["error"] is None
    first, second = requests
    assert first["messages"] == [
        {"role": "system", "content": solver_system_prompt("puzzle")},
        {"role": "user", "content": "A 3-digit lock. Guess with \\boxed{ddd}."},
    ]
    assert second["messages"][2] == {"role": "assistant", "content": f"Let me try {wrong}"}
    assert second["messages"][3]["role"] == "user"
    assert second["messages"][3]["content"].endswith("digit(s) in the right place.")


def test_a_model_that_never_answers_scores_zero_at_the_turn_limit(spade_ids, monkeypatch):
    config = SpadeEnvConfig(
        taskset={"id": TASKSET_ID, "ids": [spade_ids["clock"]], "hint": True}, workers=1
    )
    env = vf.load_environment(config)
    task = next(iter(env.taskset))
    episode, requests = asyncio.run(rollout(env, task, ["no idea"], monkeypatch))
    (trace,) = episode.traces
    assert trace.rewards["outcome"].score == 0.0
    assert trace.info["episode_turns"] == 1 and len(requests) == 1
    assert "\n\nHINT: Add the shifts up first" in requests[0]["messages"][1]["content"]


def test_the_taskset_names_its_episodes_and_refuses_games(spade_ids):
    config = SpadeEnvConfig(
        taskset={"id": TASKSET_ID, "ids": [spade_ids["lock"], spade_ids["clock"]], "size": 4}
    )
    env = vf.load_environment(config)
    tasks = list(env.taskset)
    assert [t.data.env_id for t in tasks] == [spade_ids["lock"], spade_ids["clock"]] * 2
    assert len({t.data.seed for t in tasks}) == 4
    assert json.loads(tasks[0].data.model_dump_json())["kind"] == "puzzle"
    with pytest.raises(SpadegymError, match="spade/Nim-v0 is a two-player game, and the verif"):
        vf.load_environment(SpadeEnvConfig(taskset={"id": TASKSET_ID, "ids": [spade_ids["nim"]]}))
