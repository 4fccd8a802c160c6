"""Take the environment program out of a designer model's raw reply (contract section 8).

Replies come wrapped in prose, reasoning and Markdown. ``extract_program`` finds the program
and, when there is none, says in a sentence or two what the designer should send instead, so
the message can go straight back into a repair turn. It never raises on any string.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

from spadegym import contract
from spadegym.contract import MAX_PROGRAM_BYTES
from spadegym.util import compat

__all__ = ["Extraction", "extract_program"]

_ASK = (
    "Put the complete program in one ```python block that defines a class whose name ends in Env."
)

# A tag written inside a string literal ("</think>" in an env that strips reasoning from the
# player's reply) is code, not the designer's reasoning: a quote next to it rules it out. Each
# pattern starts with a literal (the lookbehind comes after the "<"), which keeps it fast.
_THINK_OPEN = re.compile(r"""<(?<!["']<)think(?:ing)?>(?!["'])""", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"""<(?<!["']<)/think(?:ing)?>(?!["'])""", re.IGNORECASE)

# Line-anchored patterns run over "\n" + text and start with the literal "\n": a "^" under
# re.MULTILINE would be tried at every character of a long reply.
# Fence lines: a run of at least three backticks or tildes, then an info string. Backtick
# info strings may not hold backticks (CommonMark), which keeps inline ```code``` out.
_FENCE_LINE = re.compile(r"\n([ \t]*)(`{3,}(?=[^`\n]*(?:\n|\Z))|~{3,})([^\n]*)")
_PYTHON_LABELS = frozenset({"", "python", "py", "python3", "py3"})
_LABEL_END = re.compile(r"[\s:{,]")

_ENV_CLASS = re.compile(r"\n[ \t]*class[ \t]+\w*Env\b")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


@dataclass(frozen=True)
class Extraction:
    """The program found in a reply, or why none was.

    Attributes:
        code: the program text (LF line endings, ending in one newline), or ``None``.
        source: how it was found: ``"fence"``, ``"unclosed_fence"``, ``"whole_reply"``,
            ``"json"``, or ``"none"``.
        message: ``""`` when a program was found; otherwise one or two sentences for the
            designer model saying what to send instead.
    """

    code: str | None
    source: str
    message: str


@dataclass(frozen=True)
class _Block:
    """A fenced block, as positions in the text it was found in.

    ``start`` is the newline that ends the opening fence line; ``end`` is where the content
    stops (just after the newline before the closing fence, or the end of the text).
    """

    label: str
    indent: str
    start: int
    end: int
    closed: bool


def extract_program(reply: str) -> Extraction:
    """Find the environment program in a designer's raw reply.

    The rules, in order: a reply over ``MAX_PROGRAM_BYTES`` of UTF-8 is refused; a UTF-8 BOM is
    dropped and CRLF/CR line endings become LF; text inside ``<think>...</think>`` is ignored
    (an unclosed ``<think>`` hides the rest of the reply, and a ``</think>`` with no opening tag
    ends reasoning that began with the reply); so is text inside an HTML comment
    ``<!-- ... -->`` outside fenced blocks (Markdown hides it from a human reader; an unclosed
    one hides the rest); a reply that is a JSON object is read from its ``"code"`` string
    field; otherwise the last fenced block (```` ```python ````, ``py``, ``python3``,
    unlabelled, or ``~~~``) that defines a ``class ...Env`` is the program; failing that, the
    last ```` ```json ```` (or unlabelled) block holding a JSON object with a ``"code"`` field;
    failing that, an unclosed final fence that defines an ``...Env`` class; failing that, the
    whole reply if it parses as Python and defines such a class at top level,
    kept line for line (so that line numbers agree with the file it came from). (When the
    whole reply parses, it is taken before an unclosed fence: its fence lines can only sit
    inside strings.)

    Args:
        reply: the model's whole reply.

    Returns:
        An ``Extraction``; its ``message`` is empty exactly when ``code`` is not ``None``.
    """
    if not isinstance(reply, str):
        return _none(f"The reply must be text (str), not {type(reply).__name__}. {_ASK}")
    size = len(reply.encode("utf-8", "surrogatepass"))
    if size > MAX_PROGRAM_BYTES:
        return _none(
            f"The reply is {size} bytes of UTF-8; the limit is {MAX_PROGRAM_BYTES} bytes "
            "(64 KiB). Send only the program, in one ```python block, and make it shorter."
        )
    text = _normalise(reply)
    text, unclosed_think = _drop_reasoning(text)
    if not text.strip():
        if unclosed_think:
            return _none(
                "The reply opens <think> and never closes it, so everything after it is "
                f"ignored. Close your reasoning with </think>, then give the program. {_ASK}"
            )
        return _none(f"The reply is empty outside <think>...</think>. {_ASK}")

    # A program is what a reader of the rendered reply sees: HTML comments hide text.
    visible = _hide_comments(text)
    from_json = _from_json(visible)
    if from_json is None:
        from_json = _json_after_prose(visible)
    if from_json is not None:
        return from_json

    code, closed, blocks = _last_program_block(visible)
    if code is not None and closed:
        return Extraction(_tidy(code), "fence", "")
    from_json = _json_block(visible)
    if from_json is not None:
        return from_json
    whole = _whole_reply(text)  # a Python reply may hold "<!--" in a string: it is code
    if whole.code is None and visible != text:
        whole = _whole_reply(visible)
    if whole.code is not None:
        # A reply that parses as Python holds fence lines only inside strings or comments
        # (a program whose docstring shows a ``` line), so it beats an unclosed fence.
        return whole
    if code is not None:
        return Extraction(_tidy(code), "unclosed_fence", "")
    if unclosed_think:
        return _none(
            "The reply opens <think> and never closes it, so everything after it is ignored, "
            f"and no program comes before it. Close your reasoning with </think>. {_ASK}"
        )
    if blocks:
        return _none(
            f"None of the {blocks} fenced block(s) in the reply is Python code that "
            f"defines a class whose name ends in Env. {_ASK}"
        )
    return whole


def _none(message: str) -> Extraction:
    return Extraction(None, "none", message)


def _normalise(text: str) -> str:
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _drop_reasoning(text: str) -> tuple[str, bool]:
    """Remove reasoning sections; report whether an unclosed ``<think>`` hid the rest."""
    first_close = _THINK_CLOSE.search(text)
    if first_close is None and _THINK_OPEN.search(text) is None:
        return text, False
    if first_close is not None and _THINK_OPEN.search(text, 0, first_close.start()) is None:
        # Chat templates that put <think> in the prompt leave the reply with only the close.
        text = text[first_close.end() :]
    # One pass, each search starting where the last ended: linear even in many open tags.
    kept: list[str] = []
    pos = 0
    while True:
        opened = _THINK_OPEN.search(text, pos)
        if opened is None:
            kept.append(text[pos:])
            return "".join(kept), False
        kept.append(text[pos : opened.start()])
        closed = _THINK_CLOSE.search(text, opened.end())
        if closed is None:
            return "".join(kept), True
        pos = closed.end()


def _hide_comments(text: str) -> str:
    """Blank out HTML comments outside fenced blocks, keeping their line breaks.

    An unclosed comment runs to the end of the text, as Markdown renders it.
    """
    if "<!--" not in text:
        return text
    code = [(b.start - 1, b.end - 1) for b in _fenced_blocks("\n" + text)]
    kept: list[str] = []
    pos = 0
    search = 0
    block = 0
    while True:
        start = text.find("<!--", search)
        if start < 0:
            break
        while block < len(code) and code[block][1] <= start:
            block += 1
        if block < len(code) and code[block][0] <= start:
            search = code[block][1]  # inside a fenced block the text is code
            continue
        end = text.find("-->", start + 4)
        stop = len(text) if end < 0 else end + 3
        kept += [text[pos:start], "\n" * text.count("\n", start, stop)]
        pos = search = stop
    kept.append(text[pos:])
    return "".join(kept)


def _from_json(text: str) -> Extraction | None:
    """Read the program from a JSON object's ``"code"`` field; ``None`` if it is not JSON."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(obj, dict):
        return None
    code = obj.get("code")
    if not isinstance(code, str):
        return _none(
            'The reply is a JSON object without a "code" string field. Put the complete program '
            'text in "code", or send it in one ```python block instead.'
        )
    code = _normalise(code)
    if not code.strip():
        return _none(f'The "code" field of the JSON reply is empty. {_ASK}')
    # Some models wrap the program in a fence even inside the JSON string.
    fenced, closed, _ = _last_program_block(code)
    if fenced is not None and closed:
        code = fenced
    return Extraction(_tidy(code), "json", "")


def _json_after_prose(text: str) -> Extraction | None:
    """A JSON object with a ``"code"`` field after lines of prose ("Here is my environment:")."""
    start = text.find("\n{")
    if start < 0:
        return None
    found = _from_json(text[start + 1 :])
    return found if found is not None and found.code is not None else None


def _json_block(text: str) -> Extraction | None:
    """The program of the last closed ```` ```json ```` (or unlabelled) block, if any.

    Only a block holding a JSON object with a ``"code"`` string field counts.
    """
    padded = "\n" + text
    for block in reversed(_fenced_blocks(padded)):
        if block.closed and block.label in ("json", ""):
            found = _from_json(padded[block.start + 1 : block.end])
            if found is not None and found.code is not None:
                return found
    return None


def _last_program_block(text: str) -> tuple[str | None, bool, int]:
    """Find the last Python fenced block that defines an ``...Env`` class.

    A closed block wins over an unclosed final one, which only counts when no closed block
    qualifies (a reply cut off by the token limit).

    Returns:
        The block's content (``None`` if no block qualifies), whether it is closed, and how
        many fenced blocks of any kind the text holds.
    """
    # The leading newline lets a fence on the first line match; it also sits right before the
    # content of each block, where _ENV_CLASS needs one.
    text = "\n" + text
    blocks = _fenced_blocks(text)
    unclosed: _Block | None = None
    for block in reversed(blocks):
        if block.label not in _PYTHON_LABELS:
            continue
        if _ENV_CLASS.search(text, block.start, block.end) is None:
            continue
        if block.closed:
            return _dedent(text[block.start + 1 : block.end], block.indent), True, len(blocks)
        unclosed = block
    if unclosed is None:
        return None, False, len(blocks)
    return _dedent(text[unclosed.start + 1 : unclosed.end], unclosed.indent), False, len(blocks)


def _fenced_blocks(text: str) -> list[_Block]:
    """Pair the fence lines of ``text`` (which starts with a newline) into blocks, in order.

    The last block may be unclosed; it then runs to the end of the text.
    """
    blocks: list[_Block] = []
    opener: re.Match[str] | None = None
    for line in _FENCE_LINE.finditer(text):
        if opener is None:
            opener = line
            continue
        fence = opener.group(2)
        closes = (
            line.group(2)[0] == fence[0]
            and len(line.group(2)) >= len(fence)
            and not line.group(3).strip()
        )
        if closes:
            # Content runs up to and including the newline before the closing fence.
            end = line.start() + 1
            blocks.append(_Block(_label(opener), opener.group(1), opener.end(), end, True))
            opener = None
    if opener is not None:
        blocks.append(_Block(_label(opener), opener.group(1), opener.end(), len(text), False))
    return blocks


def _label(opener: re.Match[str]) -> str:
    info = opener.group(3).strip()
    return _LABEL_END.split(info, 1)[0].lower() if info else ""


def _dedent(content: str, indent: str) -> str:
    """Remove the opening fence's indentation from each line (fences nested in lists)."""
    if not indent:
        return content
    width = len(indent)
    lines = content.split("\n")
    for i, line in enumerate(lines):
        lead = len(line) - len(line.lstrip(" \t"))
        lines[i] = line[min(lead, width) :]
    return "\n".join(lines)


_LOOKS_LIKE_CODE = re.compile(r"(?:import |from \S+ import |class |def |@|#|\"\"\"|\'\'\')")
"""How a Python file starts (a reply of prose starts otherwise)."""


def _whole_reply(text: str) -> Extraction:
    """Take the whole reply when it is itself a Python program defining an ``...Env`` class."""
    if _ENV_CLASS.search("\n" + text) is None:
        return _none(f"No Python program found in the reply. {_ASK}")
    try:
        tree = compat.parse(text)
    except SyntaxError as exc:
        if _LOOKS_LIKE_CODE.match(text.lstrip()):
            # A program file with a mistake in it: the syntax check names the line.
            return Extraction(_tidy(text, keep_leading_lines=True), "whole_reply", "")
        return _none(
            "No fenced code block found, and the reply as a whole is not Python "
            f"(line {exc.lineno}: {exc.msg}). {_ASK}"
        )
    except (ValueError, RecursionError, MemoryError):
        return _none(f"No fenced code block found, and the reply as a whole is not Python. {_ASK}")
    if any(
        isinstance(node, ast.ClassDef) and contract.is_environment_class_name(node.name)
        for node in tree.body
    ):
        return Extraction(_tidy(text, keep_leading_lines=True), "whole_reply", "")
    return _none(
        f"The reply is Python but defines no top-level class whose name ends in Env. {_ASK}"
    )


def _tidy(code: str, keep_leading_lines: bool = False) -> str:
    code = _normalise(code)
    if not keep_leading_lines:
        code = _LEADING_BLANK_LINES.sub("", code)
    return code.rstrip() + "\n"
