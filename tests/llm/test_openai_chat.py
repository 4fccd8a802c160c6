"""``OpenAIChat`` against a chat-completions server started on 127.0.0.1 by the test."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("openai")

from spadegym.llm import LLMError, OpenAIChat  # noqa: E402

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


class FakeServer:
    """Answers POST /v1/chat/completions from a script of (status, delay) steps."""

    def __init__(self):
        self.requests: list[dict] = []
        self.script: list[tuple[int, float]] = []
        self.delay = 0.0
        self.choices: int | None = None
        self.active = 0
        self.peak = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(
                        {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                    )
                    status, delay = server.script.pop(0) if server.script else (200, server.delay)
                    server.active += 1
                    server.peak = max(server.peak, server.active)
                try:
                    time.sleep(delay)
                    if status != 200:
                        payload = {"error": {"message": f"scripted {status}", "type": "x"}}
                        self._send(status, payload, {"Retry-After": "0"} if status == 429 else {})
                        return
                    n = server.choices or body.get("n", 1)
                    self._send(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body["model"],
                            "choices": [
                                {
                                    "index": k,
                                    "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": f"reply {k}"},
                                }
                                for k in range(n)
                            ],
                            "usage": {
                                "prompt_tokens": 1,
                                "completion_tokens": 1,
                                "total_tokens": 2,
                            },
                        },
                    )
                finally:
                    with server.lock:
                        server.active -= 1

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.close()


def chat(server, **settings):
    settings.setdefault("backoff", 0.01)
    return OpenAIChat("test-model", base_url=server.url, api_key="k", **settings)


def test_request_shape(server):
    llm = chat(server, temperature=0.3, max_tokens=64, top_p=0.9, extra_body={"top_k": 5})
    assert llm.complete(MESSAGES) == ["reply 0"]
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer k"
    body = request["body"]
    assert body["model"] == "test-model" and body["messages"] == MESSAGES
    assert body["temperature"] == 0.3 and body["max_tokens"] == 64 and body["top_p"] == 0.9
    assert body["top_k"] == 5
    assert "n" not in body  # only sent when more than one completion is wanted
    assert llm.complete(MESSAGES, n=3) == ["reply 0", "reply 1", "reply 2"]
    assert server.requests[1]["body"]["n"] == 3
    assert llm.name == f"openai:test-model@{server.url}"


def test_a_server_that_ignores_n_is_asked_again(server):
    server.choices = 1
    assert chat(server).complete(MESSAGES, n=3) == ["reply 0"] * 3
    assert len(server.requests) == 3


def test_retries_on_429_and_500(server):
    server.script = [(429, 0), (500, 0), (503, 0)]
    llm = chat(server)
    assert llm.complete(MESSAGES) == ["reply 0"]
    assert len(server.requests) == 4 and llm.requests == 4


def test_gives_up_after_max_retries_and_names_the_status(server):
    server.script = [(500, 0)] * 3
    with pytest.raises(LLMError, match=r"HTTP 500 after 3 attempts"):
        chat(server, max_retries=2).complete(MESSAGES)
    assert len(server.requests) == 3


def test_no_retry_on_client_errors(server):
    server.script = [(400, 0)]
    with pytest.raises(LLMError, match="HTTP 400"):
        chat(server).complete(MESSAGES)
    server.script = [(404, 0)]
    with pytest.raises(LLMError, match="Check the model name 'test-model'"):
        chat(server).complete(MESSAGES)
    assert len(server.requests) == 2


def test_timeout_is_retried_then_reported(server):
    server.script = [(200, 1.0), (200, 0)]
    llm = chat(server, timeout=0.3)
    assert llm.complete(MESSAGES) == ["reply 0"]
    server.script = [(200, 1.0), (200, 1.0)]
    with pytest.raises(LLMError, match="Raise timeout"):
        chat(server, timeout=0.3, max_retries=1).complete(MESSAGES)


def test_concurrency_limit_holds_across_threads(server):
    server.delay = 0.15
    llm = chat(server, concurrency=2)
    threads = [threading.Thread(target=llm.complete, args=(MESSAGES,)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(server.requests) == 6
    assert server.peak == 2


def test_async_complete_respects_the_limit(server):
    server.delay = 0.1
    llm = chat(server, concurrency=3)

    async def main():
        return await asyncio.gather(*(llm.acomplete(MESSAGES) for _ in range(7)))

    assert asyncio.run(main()) == [["reply 0"]] * 7
    assert server.peak == 3


def test_connection_refused_says_where(server):
    url = server.url
    server.close()
    llm = OpenAIChat("m", base_url=url, api_key="k", max_retries=1, backoff=0.01, timeout=2)
    with pytest.raises(LLMError, match="Is the server at http://127.0.0.1"):
        llm.complete(MESSAGES)
    server.httpd = type(
        "Closed", (), {"shutdown": lambda s: None, "server_close": lambda s: None}
    )()


def test_a_server_that_never_answered_and_refuses_is_retried_once(server):
    import time

    from spadegym.llm.base import LLMUnreachableError

    url = server.url
    server.close()
    server.httpd = type(
        "Closed", (), {"shutdown": lambda s: None, "server_close": lambda s: None}
    )()
    llm = OpenAIChat("m", base_url=url, api_key="k", max_retries=4, backoff=0.2, timeout=2)
    started = time.perf_counter()
    with pytest.raises(LLMUnreachableError, match="Is the server at http://127.0.0.1"):
        llm.complete(MESSAGES)
    assert llm.requests == 2 and time.perf_counter() - started < 2
