"""``spadegym serve``: registered environments over OpenEnv's protocol (``openenv-core`` 0.3).

Each WebSocket session (``/ws``, what OpenEnv's ``EnvClient`` speaks) gets its own instance,
sandboxed like every spadegym environment, and the instance is released when the session
ends: the client closes it, the connection drops, or the session stays idle longer than
``idle_timeout`` (OpenEnv's reaper). At most ``max_sessions`` sessions live at once; one more
is refused with OpenEnv's ``CAPACITY_REACHED``. So memory stays bounded when clients vanish.

The instances of all sessions share one ``SandboxPool``; the sessions' resets and steps go
through ``AsyncPool``, which sends whatever is waiting to the workers as one batch.

A session plays one environment at a time: ``reset(env_id=..., seed=..., difficulty=...,
hint=...)`` starts an episode (``env_id`` may be left out when the server serves one id), then
``step(SpadeAction(reply=...))`` plays the player's replies. The observation carries the
text, the program's info, the player to move (two-player games), and at the end the
episode's outcome. Programs' ``solution()`` is never served.

The stateless HTTP ``/reset`` works; the HTTP ``/step`` cannot (each HTTP call gets a fresh
instance, as in OpenEnv), and answers 409 saying to use the WebSocket session. Messages are
checked before OpenEnv reads them (``serve_guard``): a binary frame, a JSON array, JSON nested
too deep, a lone surrogate or a reply over the limit gets an error naming it, and the session
goes on.
"""

from __future__ import annotations

import asyncio
import functools
import random
import threading
import uuid
from collections.abc import Sequence
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from spadegym import contract
from spadegym.errors import ProgramError, SpadegymError
from spadegym.integrations.aio import AsyncPool, Session
from spadegym.integrations.programs import Program, resolve
from spadegym.integrations.serve_config import ServeConfig
from spadegym.integrations.serve_guard import MessageGuard

__all__ = [
    "SpadeAction",
    "SpadeEnvClient",
    "SpadeEnvironment",
    "SpadeObservation",
    "SpadeServer",
    "SpadeState",
    "create_app",
    "serve",
]

WS_MAX_BYTES = 1 << 20
"""The largest WebSocket message the server reads (a 64k-character reply fits many times)."""


class SpadeAction(Action):
    """One reply of the player."""

    reply: str = Field(
        ..., max_length=contract.MAX_ACTION_CHARS, description="the player's whole reply"
    )


class SpadeObservation(Observation):
    """What the environment shows after a reset or a step (``done`` and ``reward`` too)."""

    text: str = Field("", description="the observation")
    env_id: str = Field("", description="the environment played")
    seed: int | None = Field(None, description="the instance")
    turn: int = Field(0, description="replies played in this episode")
    max_turns: int = Field(0, description="the episode is truncated after this many")
    player: int | None = Field(None, description="two-player games: the seat to move")
    outcome: float | list[float] | None = Field(
        None, description="when the episode ended: its outcome ([r0, r1] for a game)"
    )
    info: dict[str, Any] = Field(default_factory=dict, description="the program's info")
    error: str | None = Field(None, description="why the request could not be played")


class SpadeState(State):
    """A session's state (``episode_id`` and ``step_count`` too)."""

    env_id: str | None = None
    seed: int | None = None
    max_turns: int = 0
    done: bool = True
    outcome: float | list[float] | None = None


class SpadeServer:
    """What the sessions of one server share: the programs, the pool, the counters."""

    def __init__(self, config: ServeConfig):
        import os

        from spadegym.integrations.programs import _registered
        from spadegym.sandbox import SandboxPool

        self.config = config
        ids = list(config.ids) or sorted(_registered())
        if not ids:
            raise SpadegymError(
                "there is no registered environment to serve; add one with "
                "`spadegym add FILE` or name ids (`spadegym list` shows them)."
            )
        self.programs: dict[str, Program] = {p.env_id: p for p in resolve(ids)}
        size = config.workers or min(4, os.cpu_count() or 1)
        self.apool = AsyncPool(SandboxPool(size, config.sandbox), own=True)
        self.sessions = 0
        self._count = threading.Lock()  # sessions are made and closed on OpenEnv's threads

    def count(self, change: int) -> None:
        """Count a session made (+1) or closed (-1)."""
        with self._count:
            self.sessions += change

    def program(self, env_id: str | None) -> Program:
        """The program a reset asks for (the only one when ``env_id`` is None)."""
        if env_id is None:
            if len(self.programs) == 1:
                return next(iter(self.programs.values()))
            raise SpadegymError(
                "this server serves several environments; reset with env_id= one of "
                f"{_listing(self.programs)}."
            )
        found = self.programs.get(env_id)
        if found is None:
            try:
                found = self.programs.get(resolve([env_id])[0].env_id)
            except SpadegymError:
                found = None
        if found is None:
            raise SpadegymError(
                f"env_id={env_id!r} is not served here; serve it with `spadegym serve "
                f"{env_id}`, or reset with one of {_listing(self.programs)}."
            )
        return found

    async def aclose(self) -> None:
        """Release every instance and stop the workers."""
        await self.apool.aclose()


def _listing(programs: dict[str, Program], limit: int = 8) -> str:
    names = list(programs)
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


class SpadeEnvironment(Environment[SpadeAction, SpadeObservation, SpadeState]):
    """One OpenEnv session: its own sandboxed instance of the environment it plays."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, server: SpadeServer):
        super().__init__()
        self._server = server
        self._session: Session | None = None
        self._state = SpadeState()
        self._closed = False
        self._rng = random.Random()
        server.count(+1)

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        env_id: str | None = None,
        difficulty: int | None = None,
        hint: bool = False,
        **unknown: Any,
    ) -> SpadeObservation:
        """Start an episode of ``env_id`` on instance ``seed`` (a fresh one when None).

        Raises:
            SpadegymError: an argument is wrong, the session is closed, or the program failed.
        """
        if unknown:
            raise SpadegymError(
                f"reset() got unknown argument(s) {', '.join(sorted(unknown))}; it takes "
                "env_id, seed, difficulty, hint and episode_id."
            )
        if self._closed:
            raise SpadegymError(self._closed_message())
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise SpadegymError(f"seed={seed!r}: a seed is an int >= 0.")
        if difficulty is not None and not contract.is_difficulty(difficulty):
            raise SpadegymError(
                f"difficulty={difficulty!r}: difficulties are ints in "
                f"{contract.MIN_DIFFICULTY}..{contract.MAX_DIFFICULTY}."
            )
        program = self._server.program(env_id)
        if self._session is not None and self._session.program is not program:
            self._session.close()
            self._session = None
        if self._session is None:
            self._session = Session(self._server.apool, program)
        seed = seed if seed is not None else self._rng.randrange(2**31 - 1)
        options = {"difficulty": difficulty} if difficulty is not None else None
        try:
            text, info = await self._session.reset(seed, options, hint=bool(hint))
        except ProgramError as exc:
            raise SpadegymError(f"{program.env_id} failed to reset: {exc}") from None
        self._state = SpadeState(
            episode_id=episode_id or uuid.uuid4().hex,
            step_count=0,
            env_id=program.env_id,
            seed=seed,
            max_turns=program.max_turns,
            done=False,
        )
        return SpadeObservation(
            text=text,
            env_id=program.env_id,
            seed=seed,
            max_turns=program.max_turns,
            player=info.get("player"),
            info=info,
            reward=None,
            done=False,
        )

    async def step_async(
        self, action: SpadeAction, timeout_s: float | None = None, **kwargs: Any
    ) -> SpadeObservation:
        """Play one reply; a request that cannot be played comes back with ``error``."""
        session = self._session
        if self._closed or session is None or session.done:
            why = (
                self._closed_message()
                if self._closed
                else "no episode is running: reset first (over the WebSocket session /ws; "
                "the HTTP /step endpoint gets a fresh instance each call, so it cannot play)."
            )
            return SpadeObservation(text=why, error=why, done=True, reward=0.0)
        text, reward, terminated, truncated, info = await session.step(action.reply)
        done = terminated or truncated
        self._state.step_count += 1
        if done:
            self._state.done, self._state.outcome = True, session.outcome
        error = info.get("error")
        return SpadeObservation(
            text=text,
            env_id=session.program.env_id,
            seed=self._state.seed,
            turn=session.turn,
            max_turns=session.program.max_turns,
            player=info.get("player"),
            outcome=session.outcome if done else None,
            info=info,
            error=error.get("message") if isinstance(error, dict) else None,
            reward=reward,
            done=done,
        )

    def _closed_message(self) -> str:
        return (
            "this session was closed (it ended, or stayed idle longer than "
            f"{self._server.config.idle_timeout:g} s); open a new one."
        )

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any):
        """Synchronous reset, for callers outside the server's event loop."""
        return _run_sync(self.reset_async(seed=seed, episode_id=episode_id, **kwargs))

    def step(self, action: SpadeAction, timeout_s: float | None = None, **kwargs: Any):
        """Synchronous step, for callers outside the server's event loop."""
        return _run_sync(self.step_async(action, timeout_s=timeout_s))

    @property
    def state(self) -> SpadeState:
        """The session's state."""
        return self._state

    def close(self) -> None:
        """Release the instance (OpenEnv calls this when the session ends or times out)."""
        if self._closed:
            return
        self._closed = True
        self._server.count(-1)
        if self._session is not None:
            self._session.close()
            self._session = None


def _run_sync(coroutine: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    raise SpadegymError(
        "call reset_async/step_async from inside an event loop; the synchronous forms are "
        "for code outside one."
    )


def create_app(
    ids: Sequence[str] = (), *, config: ServeConfig | None = None, **settings: Any
) -> Any:
    """The FastAPI app of OpenEnv's protocol over registered environments.

    Args:
        ids: the ids served (none: every registered environment).
        config: a whole ``ServeConfig`` instead of ``ids`` and ``settings``.
        **settings: the other fields of ``ServeConfig``.

    Returns:
        The app; ``app.state.spadegym`` is its ``SpadeServer``.
    """
    from openenv.core.env_server.http_server import create_fastapi_app
    from openenv.core.env_server.types import ConcurrencyConfig

    config = config or ServeConfig(ids=list(ids), **settings)
    server = SpadeServer(config)
    app = create_fastapi_app(
        functools.partial(SpadeEnvironment, server),
        SpadeAction,
        SpadeObservation,
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=config.max_sessions, session_timeout=config.idle_timeout
        ),
    )
    app.state.spadegym = server
    app.router.on_shutdown.append(server.aclose)
    # Bad messages are answered before OpenEnv's handlers, keeping the session.
    app.add_middleware(MessageGuard)
    app.add_exception_handler(SpadegymError, _unprocessable)
    return app


async def _unprocessable(request: Any, exc: Exception) -> Any:
    """HTTP ``/reset`` with arguments it refuses: 422 and the reason, as OpenEnv answers."""
    from fastapi.responses import JSONResponse

    return JSONResponse(status_code=422, content={"detail": str(exc)})


class _QuietDisconnect:
    """ASGI wrapper: a WebSocket the client closed first is not an error.

    OpenEnv 0.3 closes every session's socket on the way out and only expects RuntimeError
    there, so each client that closes first would print "Exception in ASGI application".
    """

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "websocket":
            return await self.app(scope, receive, send)
        from starlette.websockets import WebSocketDisconnect

        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            pass


def uvicorn_config(app: Any, host: str, port: int, **settings: Any) -> Any:
    """The ``uvicorn.Config`` ``serve`` uses: WebSocket messages capped, pings on."""
    import uvicorn

    server: SpadeServer = app.state.spadegym
    return uvicorn.Config(
        _QuietDisconnect(app),
        host=host,
        port=port,
        ws_max_size=WS_MAX_BYTES,
        ws_ping_interval=20.0,  # a client that vanished without closing is dropped
        ws_ping_timeout=20.0,
        limit_concurrency=server.config.max_sessions + 64,
        log_level=settings.pop("log_level", "warning"),
        **settings,
    )


def serve(ids: Sequence[str] = (), host: str = "127.0.0.1", port: int = 8000, **settings: Any):
    """Serve registered environments until interrupted (see the module).

    Keyword arguments are ``ServeConfig``'s fields, then ``uvicorn.Config``'s.
    """
    import uvicorn

    names = {"max_sessions", "idle_timeout", "workers", "sandbox"}
    app = create_app(ids, **{k: v for k, v in settings.items() if k in names})
    rest = {k: v for k, v in settings.items() if k not in names}
    config = uvicorn_config(app, host, port, **rest)
    uvicorn.Server(config).run()


class SpadeEnvClient(EnvClient[SpadeAction, SpadeObservation, SpadeState]):
    """OpenEnv's WebSocket client for ``spadegym serve`` (typed; ``GenericEnvClient`` works too).

    ``async with SpadeEnvClient(base_url="http://127.0.0.1:8000") as env:``, then
    ``await env.reset(env_id="spade/TankerRoute-v0", seed=0)`` and
    ``await env.step(SpadeAction(reply="..."))``; ``.sync()`` gives the blocking form.
    """

    def _step_payload(self, action: SpadeAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[SpadeObservation]:
        fields = dict(payload.get("observation") or {})
        observation = SpadeObservation(
            **fields, reward=payload.get("reward"), done=bool(payload.get("done", False))
        )
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=observation.done
        )

    def _parse_state(self, payload: dict[str, Any]) -> SpadeState:
        return SpadeState(**payload)
