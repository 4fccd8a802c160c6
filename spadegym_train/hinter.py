"""The hinter: a separate call, never trained, that reads a program and writes its hints.

Regret (what a hint is worth to the solver) is the designer's reward, so the designer must not
control the hint it is measured with: a program's own ``hint()`` could hand over the answer
and the leak check would have to catch every spelling of it. SPADE therefore has the model
read the game's source in a separate call and write the hint; here that call also sees the
instance's first observation, and by default it is the frozen base model (the run's model with
its LoRA adapters disabled, so training never shapes it), or any ``spadegym.llm`` backend
(``play.hint_llm``), sampled at ``generation.hint_temperature``.

What the hinter reads is the program as the interpreter sees it, less two channels the
designer could use to speak to it (``hinter_view``): comments are gone (the program is parsed
and written back, so a ``# NOTE TO THE HINT WRITER`` never reaches the prompt, while a ``#``
inside a string stays string text), and so is the program's own ``hint()``, however it is
defined (a method, decorated or not, an assignment, a lambda, a name bound to another
function, ``setattr``). Docstrings stay: they describe the game.

Each hint is checked as a program's ``hint()`` is (length, sentences, no talk of the code,
the answer however spelled: ``spadegym.validation.leak``) and by behaviour
(``hint_leaks.behavioural_leak``: a copying shortcut solver that wins with the hint and not
without it); a rejected hint means no hint play for that instance. The counts feed the
``designer/hint*`` metrics.
"""

from __future__ import annotations

import ast
import concurrent.futures
import io
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spadegym.designer.hints import clean_hint, hint_problem
from spadegym.designer.prompts import hint_messages
from spadegym.llm.base import ChatLLM, LLMError, Message
from spadegym.llm.tokens import encode_chat
from spadegym.play import HintRequest
from spadegym_train.engines.base import BASE_ROLE
from spadegym_train.hint_leaks import behavioural_leak

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig

HINT_NAME = "hint"
"""The contract's hint method, which the hinter never reads."""

Writer = Callable[[Sequence[list[Message]]], list[str]]
"""Answers hint requests (chat messages) with one reply each."""


@dataclass
class HintCounts:
    """What became of the hints asked for since the last ``take``."""

    asked: int = 0
    kept: int = 0
    leaks: int = 0
    rejected: int = 0

    def take(self) -> dict[str, float]:
        """The counts as ``designer/`` metrics, and reset them."""
        metrics = {
            "designer/hints_asked": float(self.asked),
            "designer/hints_kept": float(self.kept),
            "designer/hint_leaks": float(self.leaks),
            "designer/hints_rejected": float(self.rejected),
        }
        self.asked = self.kept = self.leaks = self.rejected = 0
        return metrics


def _binds_hint(target: ast.expr) -> bool:
    """Whether an assignment target binds ``hint`` (a name, an attribute, a key, unpacked)."""
    if isinstance(target, ast.Name):
        return target.id == HINT_NAME
    if isinstance(target, ast.Attribute):
        return target.attr == HINT_NAME
    if isinstance(target, ast.Subscript):
        key = target.slice
        return isinstance(key, ast.Constant) and key.value == HINT_NAME
    if isinstance(target, ast.Tuple | ast.List):
        return any(_binds_hint(t) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _binds_hint(target.value)
    return False


def _hint_statement(node: ast.stmt, aliases: set[str]) -> bool:
    """Whether a statement defines ``hint`` (or a function a ``hint = name`` binds)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == HINT_NAME or node.name in aliases
    if isinstance(node, ast.Assign):
        return any(_binds_hint(t) for t in node.targets)
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return _binds_hint(node.target)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value  # setattr(cls, "hint", ...)
        return (
            isinstance(call.func, ast.Name)
            and call.func.id == "setattr"
            and len(call.args) >= 2
            and isinstance(call.args[1], ast.Constant)
            and call.args[1].value == HINT_NAME
        )
    return False


class _DropHint(ast.NodeTransformer):
    """Removes every statement that defines ``hint``, in any body, at any depth."""

    def __init__(self, aliases: set[str]):
        self.aliases = aliases

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                kept = [s for s in body if not _hint_statement(s, self.aliases)]
                if not kept and name == "body":
                    kept = [ast.Pass()]
                setattr(node, name, kept)
        return super().generic_visit(node)


def _hint_aliases(tree: ast.AST) -> set[str]:
    """Names of functions bound to ``hint`` by assignment (``hint = _h``): hidden too."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(_binds_hint(t) for t in node.targets):
            names |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    return names - {HINT_NAME}


def _without_comments(source: str) -> str:
    """The source with its comment tokens removed (for text that does not parse)."""
    try:
        kept = [
            t
            for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type != tokenize.COMMENT
        ]
        return tokenize.untokenize(kept)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return "\n".join(line for line in source.splitlines() if "#" not in line)


def hinter_view(source: str) -> str:
    """The program as the hinter reads it: no comments, no ``hint()``, docstrings kept.

    The program is parsed and written back (``ast.unparse``), so comments cannot survive in
    any form, and string literals (docstrings included) stay exactly what they were.
    A program that does not parse (never a validated one) loses its comments and every
    line with a ``#``.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return _without_comments(source)
    tree = _DropHint(_hint_aliases(tree)).visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree))


class Hinter:
    """Writes one checked hint per instance (``None`` where no hint passes the checks).

    Args:
        write: the model call (``model_writer`` or ``llm_writer``).
    """

    def __init__(self, write: Writer):
        self.write = write
        self.counts = HintCounts()

    def __call__(self, requests: Sequence[HintRequest]) -> list[str | None]:
        """Hints for the requests, in order (the ``spadegym.play`` hinter interface)."""
        if not requests:
            return []
        views: dict[str, str] = {}  # one parse per program, not per instance
        for request in requests:
            if request.source not in views:
                views[request.source] = hinter_view(request.source)
        replies = self.write(
            [hint_messages(views[r.source], r.first_observation) for r in requests]
        )
        hints: list[str | None] = []
        for request, reply in zip(requests, replies, strict=True):
            hint = clean_hint(reply)
            self.counts.asked += 1
            if hint_problem(hint, []) is not None:  # too long, code talk, empty
                self.counts.rejected += 1
                hints.append(None)
            elif leak_problem(hint, request) is not None:
                self.counts.rejected += 1
                self.counts.leaks += 1
                hints.append(None)
            else:
                self.counts.kept += 1
                hints.append(hint)
        return hints


def leak_problem(hint: str, request: HintRequest) -> str | None:
    """How ``hint`` gives away the instance's answer (spelled or by behaviour), or ``None``."""
    if not request.solution:
        return None
    spelled = hint_problem(hint, [request.solution])
    if spelled is not None:
        return spelled
    pointed = behavioural_leak(hint, request.first_observation, request.solution)
    return f"the hint lets a shortcut win: {pointed}" if pointed else None


def model_writer(engine: Any, tokenizer: Any, config: TrainConfig) -> Writer:
    """The frozen base model (adapters disabled) through the run's generation engine."""

    def write(requests: Sequence[list[Message]]) -> list[str]:
        prompts = [
            encode_chat(
                tokenizer,
                messages,
                config.generation.max_prompt_tokens,
                config.model.chat_template_kwargs,
            )
            for messages in requests
        ]
        replies = engine.generate(
            prompts,
            BASE_ROLE,
            config.generation.hint_max_new_tokens,
            config.generation.hint_temperature,
        )
        return [reply.text for reply in replies]

    return write


def llm_writer(llm: ChatLLM, concurrency: int = 8) -> Writer:
    """A ``spadegym.llm`` backend (``play.hint_llm``); a failed call gives an empty hint."""

    def ask(messages: list[Message]) -> str:
        try:
            return llm.complete(messages, 1)[0]
        except LLMError:
            return ""

    def write(requests: Sequence[list[Message]]) -> list[str]:
        with concurrent.futures.ThreadPoolExecutor(max(1, concurrency)) as threads:
            return list(threads.map(ask, requests))

    return write


def make_hinter(config: TrainConfig, engine: Any, tokenizer: Any) -> Hinter | None:
    """The run's hinter (``None`` when hints come from the programs)."""
    if config.play.hint_source != "hinter":
        return None
    if config.play.hint_llm:
        from spadegym.llm import llm_from_spec

        return Hinter(llm_writer(llm_from_spec(config.play.hint_llm)))
    return Hinter(model_writer(engine, tokenizer, config))
