"""The messages of ``spadegym serve``, checked before OpenEnv's handlers see them.

OpenEnv 0.3 ends a WebSocket session on a binary frame, a JSON array, JSON nested too deep for
Python's parser, or text with a lone surrogate, with a generic message; and it answers a reply
over the length limit with "Invalid message" and the whole reply echoed back. ``MessageGuard``
(an ASGI wrapper) reads each message first and answers one it cannot take with an error that
says what is wrong and what the limit is, keeping the session; a good message goes on to
OpenEnv unchanged.

Over HTTP, ``POST /step`` cannot play (each HTTP call gets a fresh instance), so the guard
answers it itself, with error statuses as OpenEnv's server uses them: 422 for a body that is
not a valid step request (the offending reply cut, never echoed whole), 409 for a valid one
(no episode is running on that instance). ``POST /reset`` bodies are checked the same way.
"""

from __future__ import annotations

import json
from typing import Any

from spadegym import contract

MAX_DEPTH = 32
"""How deeply a message's JSON may nest (real messages nest three levels)."""

MAX_HTTP_BODY = 1 << 20
"""The largest HTTP request body read, like the WebSocket message limit."""

ECHO_CHARS = 80
"""How much of an offending value an error shows."""

HTTP_STEP_CANNOT_PLAY = (
    "no episode is running: reset first (over the WebSocket session /ws; the HTTP /step "
    "endpoint gets a fresh instance each call, so it cannot play)."
)


def _depth_over(text: str, limit: int) -> bool:
    """Whether JSON ``text`` nests arrays or objects deeper than ``limit`` (strings skipped)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _cut(value: str) -> str:
    return value if len(value) <= ECHO_CHARS else value[:ECHO_CHARS] + "..."


def parse(text: str) -> tuple[Any, str | None]:
    """The JSON object in ``text``, or None and what is wrong with it (JSON errors included)."""
    if _depth_over(text, MAX_DEPTH):
        return None, f"the message nests deeper than {MAX_DEPTH} levels; send a flat JSON object."
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return None, f"the message is not JSON ({_cut(str(exc))})."
    if not isinstance(value, dict):
        return None, (
            f"the message is a JSON {type(value).__name__}; send an object, "
            '{"type": "reset" | "step" | "state" | "close", "data": {...}}.'
        )
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else "?"
        return None, (
            f"the message holds a lone surrogate ({bad.encode('unicode_escape').decode()}), "
            "which is not text; send UTF-8 text (escape characters outside the BMP as a "
            "surrogate pair)."
        )
    return value, None


def check_reply(data: Any) -> str | None:
    """Why a step's ``data`` (``{"reply": ...}``) cannot be played, or None."""
    if not isinstance(data, dict) or "reply" not in data:
        return 'a step needs data {"reply": "<the player\'s reply>"}.'
    reply = data["reply"]
    if not isinstance(reply, str):
        return f"the reply is a {type(reply).__name__}; a reply is a string."
    if len(reply) > contract.MAX_ACTION_CHARS:
        return (
            f"the reply is {len(reply):,} characters; the limit is "
            f"{contract.MAX_ACTION_CHARS:,} (contract.MAX_ACTION_CHARS). Send a shorter one."
        )
    return None


def check_ws(text: str) -> str | None:
    """Why a WebSocket message cannot be handled, or None for one OpenEnv may take."""
    message, problem = parse(text)
    if problem is not None:
        return problem
    if message.get("type") == "step":
        return check_reply(message.get("data"))
    return None


def _ws_error(problem: str) -> str:
    from openenv.core.env_server.types import WSErrorCode, WSErrorResponse

    return WSErrorResponse(
        data={"message": problem, "code": WSErrorCode.VALIDATION_ERROR}
    ).model_dump_json()


class MessageGuard:
    """ASGI wrapper of the served app: bad messages are answered here (see the module)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        """Check the request's messages, then hand it to the app (unless answered here)."""
        if scope.get("type") == "websocket" and scope.get("path") == "/ws":
            return await self.app(scope, self._guarded(receive, send), send)
        if scope.get("type") == "http" and scope.get("method") == "POST":
            if scope.get("path") in ("/step", "/reset"):
                return await self._http(scope, receive, send)
        return await self.app(scope, receive, send)

    def _guarded(self, receive: Any, send: Any) -> Any:
        async def checked() -> dict:
            while True:
                message = await receive()
                if message.get("type") != "websocket.receive":
                    return message
                text = message.get("text")
                problem: str | None
                if text is None:
                    problem = "binary frames are not read; send a text frame holding a JSON object."
                else:
                    problem = check_ws(text)
                if problem is None:
                    return message
                # OpenEnv's loop is waiting in receive, so nothing else is sending now.
                await send({"type": "websocket.send", "text": _ws_error(problem)})

        return checked

    async def _http(self, scope: dict, receive: Any, send: Any) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            if message.get("type") != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > MAX_HTTP_BODY:
                return await _respond(
                    send, 413, f"the request body is over {MAX_HTTP_BODY:,} bytes."
                )
        problem: str | None = None
        data: Any = None  # the request's JSON object (always parsed for a step)
        if body.strip() or scope["path"] == "/step":
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                return await _respond(send, 422, "the request body is not UTF-8 text.")
            data, problem = parse(text)
        if problem is not None:
            return await _respond(send, 422, problem)
        if scope["path"] == "/step":
            problem = check_reply(data.get("action"))
            if problem is not None:
                return await _respond(
                    send, 422, problem.replace("a step needs data", "a step needs action")
                )
            return await _respond(send, 409, HTTP_STEP_CANNOT_PLAY)
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)


async def _respond(send: Any, status: int, detail: str) -> None:
    payload = json.dumps({"detail": detail}).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
