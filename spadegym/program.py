"""Helpers that environment programs may import (contract section 5).

This module is imported inside sandbox workers, so it depends on the standard library (and
``spadegym.contract``) only. ``extract_boxed``, ``parse_tool_calls`` and ``read_difficulty`` are
pure functions that never raise on any input; ``ToolEnv`` is the base class for tool-use
environments (contract section 6). They run as trusted code on the program's behalf:
``ToolEnv.step`` looks tools up only among the names the program declared.
"""

from __future__ import annotations

import json
import re
from typing import Any

from spadegym.contract import DEFAULT_DIFFICULTY, is_difficulty

__all__ = ["extract_boxed", "parse_tool_calls", "extract_answer", "read_difficulty", "ToolEnv"]

_BOXED = "\\boxed{"
_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


def extract_boxed(text: str) -> str | None:
    r"""Return the content of the last complete ``\boxed{...}`` in ``text``, stripped.

    Braces inside the box must balance (``\boxed{\frac{1}{2}}`` gives ``\frac{1}{2}``). An
    unclosed final box is skipped in favour of the last closed one. Linear in ``len(text)``.

    Args:
        text: a player's reply.

    Returns:
        The content, or ``None`` when ``text`` is not a string or holds no closed box.
    """
    if not isinstance(text, str):
        return None
    # A box that starts before an unclosed one cannot close after it (the later box's brace
    # never closes), so each scan may stop where the previous, unclosed, box began.
    limit = len(text)
    start = len(text)
    while True:
        start = text.rfind(_BOXED, 0, start)
        if start < 0:
            return None
        depth = 1
        i = start + len(_BOXED)
        while i < limit:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start + len(_BOXED) : i].strip()
            i += 1
        limit = start


def _blocks(text: str, opening: str, closing: str) -> list[str]:
    """The contents of every ``opening...closing`` block, non-greedy, in one linear pass."""
    found: list[str] = []
    position = 0
    while True:
        start = text.find(opening, position)
        if start < 0:
            return found
        end = text.find(closing, start + len(opening))
        if end < 0:  # no later opening can close either
            return found
        found.append(text[start + len(opening) : end])
        position = end + len(closing)


def read_difficulty(options: Any, default: int = DEFAULT_DIFFICULTY) -> int:
    """The ``difficulty`` of ``reset``'s options: an int in 1..5, or ``default``.

    Anything else (no options, no such key, a bool, a float, a str, an int out of range)
    gives ``default``.

    Args:
        options: the ``options`` argument of ``reset``.
        default: what to return when the options carry no valid difficulty.
    """
    if isinstance(options, dict):
        value = options.get("difficulty")
        if is_difficulty(value):
            return value
    return default


_NOT_JSON = object()


def _json(text: str) -> Any:
    """``json.loads``, or ``_NOT_JSON`` when the text is not JSON or nests too deeply."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError, MemoryError):
        return _NOT_JSON


def parse_tool_calls(text: str) -> list[dict[str, Any]]:
    """Parse every ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` block.

    ``arguments`` may be missing (an empty dict) or a JSON-encoded string (the OpenAI wire
    form). Malformed blocks (bad JSON, JSON nested too deeply to decode, no string ``name``,
    non-object arguments) are skipped: the function never raises.

    Args:
        text: a player's reply.

    Returns:
        One ``{"name": str, "arguments": dict}`` per well-formed block, in order.
    """
    if not isinstance(text, str):
        return []
    calls = []
    for block in _blocks(text, "<tool_call>", "</tool_call>"):
        call = _json(block.strip())
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            continue
        arguments = call.get("arguments", {})
        if isinstance(arguments, str):
            arguments = _json(arguments) if arguments.strip() else {}
            if arguments is _NOT_JSON:
                continue
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            continue
        calls.append({"name": call["name"], "arguments": arguments})
    return calls


def extract_answer(text: str) -> str | None:
    """Return the stripped content of the last ``<answer>...</answer>`` block, or ``None``."""
    if not isinstance(text, str):
        return None
    found = _blocks(text, "<answer>", "</answer>")
    return found[-1].strip() if found else None


def _tool_response(name: str, key: str, value: Any) -> str:
    payload = json.dumps({"name": name, key: value}, ensure_ascii=False, default=repr)
    return f"<tool_response>\n{payload}\n</tool_response>"


class ToolEnv:
    """Base class for tool-use environments (contract section 6).

    A subclass declares ``tools`` (function specs: ``{"name", "description", "parameters"}``),
    one ``tool_<name>(self, **arguments)`` method per tool, ``reset``, ``solution`` and
    ``check(self, answer) -> float``. The player's reply may hold ``<tool_call>`` blocks, run in
    order, and an ``<answer>`` block, judged by ``check`` after the calls, which ends the
    episode. Mistakes (unknown tool, bad arguments, a tool that raises) become error lines in
    the observation, never exceptions.
    """

    tools: list | tuple = ()
    max_turns = 10

    def tool_names(self) -> list[str]:
        """The names of the declared tools, in declaration order."""
        names = []
        for spec in self.tools:
            if isinstance(spec, dict) and isinstance(spec.get("name"), str):
                names.append(spec["name"])
        return names

    def describe_tools(self) -> str:
        """The tool specs as JSON lines, ready to put in an observation."""
        return "\n".join(
            json.dumps(spec, ensure_ascii=False, sort_keys=True) for spec in self.tools
        )

    def check(self, answer: str) -> float:
        """Score the final answer from the answer text and the env's state (override this)."""
        raise NotImplementedError("a ToolEnv subclass must define check(self, answer)")

    def run_tool(self, name: str, arguments: dict) -> str:
        """Run one tool call and return its ``<tool_response>`` block (errors included)."""
        if name not in self.tool_names() or not _TOOL_NAME.match(name):
            available = ", ".join(self.tool_names()) or "none"
            return _tool_response(name, "error", f"unknown tool; available tools: {available}")
        method = getattr(self, "tool_" + name, None)
        if method is None or not callable(method):
            return _tool_response(name, "error", "this tool is declared but not implemented")
        try:
            result = method(**arguments)
        except TypeError as exc:
            # Only a mismatch with the tool's signature is the player's mistake.
            if exc.__traceback__ is not None and exc.__traceback__.tb_next is None:
                return _tool_response(name, "error", f"bad arguments: {exc}")
            return _tool_response(name, "error", f"TypeError: {exc}")
        except Exception as exc:  # the tool's own failure is information for the player
            return _tool_response(name, "error", f"{type(exc).__name__}: {exc}")
        return _tool_response(name, "result", result)

    def step(self, action: str):
        """Run the reply's tool calls in order, then judge its answer if it gives one."""
        calls = parse_tool_calls(action)
        text = action if isinstance(action, str) else ""
        blocks = len(_blocks(text, "<tool_call>", "</tool_call>"))
        lines = [self.run_tool(call["name"], call["arguments"]) for call in calls]
        if blocks > len(calls):
            lines.append(
                f"{blocks - len(calls)} <tool_call> block(s) were not valid JSON objects of the "
                'form {"name": ..., "arguments": {...}} and were skipped.'
            )
        answer = extract_answer(action)
        if answer is not None:
            reward = self.check(answer)
            lines.append(f"Answer submitted. Score: {reward}.")
            return "\n".join(lines), reward, True, False, {}
        if not lines:
            lines.append(
                "No tool call or answer found. Call a tool with "
                '<tool_call>{"name": "...", "arguments": {...}}</tool_call> '
                "or finish with <answer>...</answer>."
            )
        return "\n".join(lines), 0.0, False, False, {}
