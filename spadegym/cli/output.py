"""Text that programs produced, made safe to print: on a terminal, and inside JSON.

Programs (and the models that write them) choose observations, titles, hints, docstrings and
error messages. Printed raw, an ANSI or OSC escape sequence drives the user's terminal (it
moves the cursor, rewrites lines and the window title, plants hyperlinks), and a lone surrogate
makes ``print`` raise ``UnicodeEncodeError``, which loses everything else the command was about
to print; bidirectional and zero-width characters make a line read differently from what it
holds. Every command that prints such text passes it through ``terminal`` (prose and
tables) or ``dumps`` (JSON).
"""

from __future__ import annotations

import json
import re
from typing import Any

# Bidirectional controls (they reorder what follows: a line can read differently from what it
# holds, the "Trojan Source" trick), zero-width and invisible characters (they hide text or
# split a word that looks whole), and the Unicode line and paragraph separators.
_INVISIBLE = "\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
# C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-character CSI on some
# terminals), the invisible characters above, and lone surrogates, which no encoder will write.
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")
# What json.dumps(ensure_ascii=False) leaves raw: it escapes every C0 control itself.
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal(text: object) -> str:
    r"""``text`` as a str that prints as plain text on any terminal.

    Control characters other than tab and newline, bidirectional controls, zero-width and
    other invisible characters, and lone surrogates become visible escapes (``\x1b``,
    ``\u202e``, ``\u200b``, ``\ud800``); everything else, other scripts included, is
    unchanged.
    """
    text = text if isinstance(text, str) else str(text)
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def dumps(value: Any, **options: Any) -> str:
    r"""``json.dumps(value, ensure_ascii=False, **options)``, safe to print.

    The characters JSON would leave raw (DEL, C1 controls, bidirectional and invisible
    characters, lone surrogates) are written as ``\uXXXX`` escapes, which decode to the same
    strings.
    """
    text = json.dumps(value, ensure_ascii=False, **options)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
