"""Tests for spadegym.extract: taking the program out of a designer's raw reply."""

from __future__ import annotations

import json
import time

import pytest

from spadegym.contract import MAX_PROGRAM_BYTES
from spadegym.extract import Extraction, extract_program

PROGRAM = 'import random\n\n\nclass CoinEnv:\n    """Flip."""\n\n    max_turns = 3\n'
OTHER = "class OtherEnv:\n    max_turns = 5\n"
ASK = "Put the complete program in one ```python block that defines a class whose name ends in Env."


def fenced(code: str, label: str = "python", fence: str = "```") -> str:
    return f"{fence}{label}\n{code}{fence}\n"


def found(reply: str, source: str) -> str:
    result = extract_program(reply)
    assert result.message == ""
    assert result.source == source
    assert result.code is not None
    return result.code


def refused(reply: object) -> str:
    result = extract_program(reply)  # type: ignore[arg-type]
    assert result.code is None
    assert result.source == "none"
    assert result.message
    return result.message


# --- fenced blocks ---------------------------------------------------------------------------


def test_fenced_python_block_in_prose():
    reply = "Here is the environment.\n\n" + fenced(PROGRAM) + "\nIt tests coin flips."
    assert found(reply, "fence") == PROGRAM


@pytest.mark.parametrize("label", ["python", "py", "python3", "Python", "PY", "", "python env.py"])
def test_accepted_fence_labels(label):
    assert found(fenced(PROGRAM, label), "fence") == PROGRAM


def test_tilde_fence():
    assert found(fenced(PROGRAM, "python", "~~~"), "fence") == PROGRAM


def test_last_block_that_defines_an_env_wins():
    reply = fenced(OTHER) + "Fixed version:\n" + fenced(PROGRAM) + fenced("print('usage')\n")
    assert found(reply, "fence") == PROGRAM


def test_blocks_in_other_languages_are_not_the_program():
    reply = fenced(PROGRAM) + fenced("class JavaEnv {}\n", "java") + fenced(OTHER, "text")
    assert found(reply, "fence") == PROGRAM


def test_longer_fence_holds_a_shorter_one():
    code = 'class DocEnv:\n    """Answer like\n```\n\\boxed{1}\n```\n"""\n'
    reply = "````python\n" + code + "````\n"
    assert found(reply, "fence") == code


def test_indented_fence_is_dedented():
    reply = "1. The program:\n\n   ```python\n   class ListEnv:\n       max_turns = 2\n   ```\n"
    assert found(reply, "fence") == "class ListEnv:\n    max_turns = 2\n"


def test_inline_triple_backticks_are_not_a_fence():
    reply = "Use ```python``` blocks.\n" + fenced(PROGRAM)
    assert found(reply, "fence") == PROGRAM


def test_fence_on_first_line_and_no_trailing_newline():
    assert found("```python\n" + PROGRAM + "```", "fence") == PROGRAM


def test_blank_lines_around_the_code_are_trimmed():
    assert found(fenced("\n\n" + PROGRAM + "\n\n\n"), "fence") == PROGRAM


def test_unclosed_final_fence_is_taken_when_no_closed_block_qualifies():
    reply = "Here you go:\n```python\n" + PROGRAM
    assert found(reply, "unclosed_fence") == PROGRAM


def test_program_with_a_fence_line_in_its_docstring_is_taken_whole():
    code = '"""Replies look like this:\n```\n"""\n\n\nclass DocEnv:\n    max_turns = 1\n'
    assert found(code, "whole_reply") == code


def test_closed_block_beats_unclosed_final_fence():
    reply = fenced(PROGRAM) + "And a variant:\n```python\n" + OTHER
    assert found(reply, "fence") == PROGRAM


def test_fenced_blocks_without_an_env_class():
    message = refused(fenced("x = 1\n") + fenced("class Helper:\n    pass\n"))
    assert message == (
        "None of the 2 fenced block(s) in the reply is Python code that defines a class whose "
        f"name ends in Env. {ASK}"
    )


def test_class_name_must_end_in_env():
    refused(fenced("class EnvHelper:\n    pass\n"))
    refused(fenced("class Environment:\n    pass\n"))


# --- line endings, BOM, tabs -----------------------------------------------------------------


def test_crlf_and_cr_line_endings_become_lf():
    reply = fenced(PROGRAM)
    assert found(reply.replace("\n", "\r\n"), "fence") == PROGRAM
    assert found(reply.replace("\n", "\r"), "fence") == PROGRAM


def test_bom_is_stripped():
    assert found("\ufeff" + PROGRAM, "whole_reply") == PROGRAM
    assert found("\ufeff" + fenced(PROGRAM), "fence") == PROGRAM


def test_tabs_are_kept():
    code = "class TabEnv:\n\tmax_turns = 4\n"
    assert found(fenced(code), "fence") == code
    assert found(code, "whole_reply") == code


# --- reasoning -------------------------------------------------------------------------------


def test_think_section_is_ignored():
    reply = "<think>Draft:\n" + fenced(OTHER) + "</think>\n" + fenced(PROGRAM)
    assert found(reply, "fence") == PROGRAM
    reply = fenced(PROGRAM) + "<think>\nmaybe this instead\n" + fenced(OTHER) + "</think>"
    assert found(reply, "fence") == PROGRAM


def test_think_tags_are_case_insensitive_and_thinking_counts():
    reply = "<THINK>" + fenced(OTHER) + "</THINK>" + fenced(PROGRAM)
    assert found(reply, "fence") == PROGRAM
    reply = "<thinking>" + fenced(OTHER) + "</thinking>" + fenced(PROGRAM)
    assert found(reply, "fence") == PROGRAM


def test_unclosed_think_hides_the_rest():
    reply = fenced(PROGRAM) + "<think>\n" + fenced(OTHER)
    assert found(reply, "fence") == PROGRAM
    message = refused("Let me think.\n<think>\n" + fenced(PROGRAM))
    assert message.startswith("The reply opens <think> and never closes it")
    assert message.endswith(ASK)


def test_only_reasoning():
    message = refused("<think>" + fenced(PROGRAM) + "</think>\n\n")
    assert message == f"The reply is empty outside <think>...</think>. {ASK}"


def test_close_tag_without_open_ends_reasoning_from_the_start():
    # Chat templates that put <think> in the prompt: the reply holds only the closing tag.
    reply = "Draft, never closed:\n```python\n" + OTHER + "</think>\n" + fenced(PROGRAM)
    assert found(reply, "fence") == PROGRAM


def test_think_tags_inside_string_literals_are_code():
    code = (
        "class StripEnv:\n"
        "    def step(self, action):\n"
        "        action = action.split('</think>')[-1]\n"
        '        hidden = "<think>"\n'
        "        return action, 0.0, False, False, {}\n"
    )
    assert found(fenced(code), "fence") == code


# --- whole reply -----------------------------------------------------------------------------


def test_whole_reply_that_is_a_program():
    assert found(PROGRAM, "whole_reply") == PROGRAM


def test_whole_reply_that_is_not_python():
    message = refused("I would write class CoinEnv with a flip method.\nclass CoinEnv is nice")
    assert message.startswith("No fenced code block found, and the reply as a whole is not Python")
    assert "(line 1:" in message


def test_whole_reply_python_without_an_env_class():
    message = refused("class Outer:\n    class InnerEnv:\n        pass\n")
    assert message.startswith("The reply is Python but defines no top-level class")


def test_prose_only():
    assert refused("I cannot help with that.") == f"No Python program found in the reply. {ASK}"


@pytest.mark.parametrize("reply", ["", "   \n\t\n", "\ufeff"])
def test_empty_reply(reply):
    assert refused(reply).endswith(ASK)


def test_non_string_reply():
    assert refused(b"class AEnv: pass") == f"The reply must be text (str), not bytes. {ASK}"
    refused(None)


# --- JSON ------------------------------------------------------------------------------------


def test_json_code_field():
    reply = json.dumps({"title": "Coin", "code": PROGRAM})
    assert found(reply, "json") == PROGRAM
    assert found("\n  " + json.dumps({"code": PROGRAM}, indent=2) + "\n", "json") == PROGRAM


def test_json_code_field_with_crlf_and_fence():
    assert found(json.dumps({"code": PROGRAM.replace("\n", "\r\n")}), "json") == PROGRAM
    assert found(json.dumps({"code": "Sure:\n" + fenced(PROGRAM)}), "json") == PROGRAM


def test_json_without_code_field():
    message = refused(json.dumps({"program": PROGRAM}))
    assert message.startswith('The reply is a JSON object without a "code" string field.')
    refused(json.dumps({"code": 42}))


def test_json_with_empty_code():
    assert refused(json.dumps({"code": "  \n"})) == (
        f'The "code" field of the JSON reply is empty. {ASK}'
    )


def test_braces_that_are_not_json_fall_through():
    refused("{not json}")


# --- size and speed --------------------------------------------------------------------------


def test_reply_over_the_limit_names_size_and_limit():
    reply = fenced(PROGRAM) + "#" * MAX_PROGRAM_BYTES
    size = len(reply.encode("utf-8"))
    assert refused(reply) == (
        f"The reply is {size} bytes of UTF-8; the limit is {MAX_PROGRAM_BYTES} bytes (64 KiB). "
        "Send only the program, in one ```python block, and make it shorter."
    )


def test_limit_counts_utf8_bytes_not_characters():
    comment = "# " + "é" * (MAX_PROGRAM_BYTES // 2) + "\n"
    assert len(comment) < MAX_PROGRAM_BYTES
    refused(fenced(PROGRAM + comment))


def test_reply_at_the_limit_is_accepted():
    padding = MAX_PROGRAM_BYTES - len(fenced(PROGRAM)) - 1
    code = PROGRAM + "#" * padding + "\n"
    reply = fenced(code)
    assert len(reply.encode("utf-8")) == MAX_PROGRAM_BYTES
    assert found(reply, "fence") == code


def test_lone_surrogates_do_not_raise():
    assert found(fenced(PROGRAM + "# \ud800\n"), "fence").endswith("\ud800\n")


def test_extraction_is_frozen():
    result = extract_program(PROGRAM)
    assert isinstance(result, Extraction)
    with pytest.raises(AttributeError):
        result.code = "x"  # type: ignore[misc]


def best_of(reply: str, rounds: int = 5, repeat: int = 20) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            extract_program(reply)
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


@pytest.mark.parametrize(
    "reply",
    [
        "Prose first.\n```python\n" + "class AEnv:\n    x = 1\n" * 2700 + "```\n",
        "A line of prose that goes on.\n" * 2100,
        "<think>" * 9000,
        "word " * 13000,
    ],
    ids=["fenced", "prose_lines", "open_tags", "one_line"],
)
def test_64_kib_reply_is_fast(reply):
    assert len(reply.encode("utf-8")) <= MAX_PROGRAM_BYTES
    # Generous against a loaded machine; measured about 1 ms or less on two shared cores.
    assert best_of(reply) < 0.01


# --- JSON in a fence, HTML comments, line numbers ------------------------------------------


def test_json_code_field_in_a_fence():
    payload = json.dumps({"title": "Coin", "code": PROGRAM}, indent=2) + "\n"
    assert found(fenced(payload, "json"), "json") == PROGRAM
    assert found("Here is my answer:\n\n" + fenced(payload, "json") + "\nDone.", "json") == (
        PROGRAM
    )
    assert found(fenced(payload, ""), "json") == PROGRAM


def test_python_block_beats_a_json_block():
    reply = fenced(PROGRAM) + fenced(json.dumps({"code": OTHER}), "json")
    assert found(reply, "fence") == PROGRAM


def test_json_block_without_code_is_not_a_program():
    message = refused(fenced(json.dumps({"program": PROGRAM}), "json"))
    assert message.startswith("None of the 1 fenced block(s) in the reply is Python code")


HIDDEN = "class HiddenEnv:\n    max_turns = 9\n"


@pytest.mark.parametrize(
    "reply",
    [
        fenced(PROGRAM) + "<!--\n" + fenced(HIDDEN) + "-->\n",
        fenced(PROGRAM) + "<!-- " + fenced(HIDDEN),  # an unclosed comment hides the rest
        "<!--\n" + fenced(HIDDEN) + "-->\n" + fenced(PROGRAM),
        fenced(PROGRAM) + "Notes <!-- inline --> and <!--\n" + fenced(HIDDEN) + "-->\n",
    ],
    ids=["after", "unclosed", "before", "inline_then_block"],
)
def test_a_program_in_an_html_comment_is_not_the_one_taken(reply):
    assert found(reply, "fence") == PROGRAM


def test_a_comment_hiding_the_only_program_leaves_none():
    message = refused("Here:\n<!--\n" + fenced(PROGRAM) + "-->\n")
    assert message == f"No Python program found in the reply. {ASK}"


def test_html_comment_markers_inside_code_are_code():
    code = 'class PageEnv:\n    """Strip <!-- comments --> from pages."""\n    tag = "<!--"\n'
    assert found(fenced(code), "fence") == code
    assert found(code, "whole_reply") == code
    assert found("<!-- a note -->\n" + PROGRAM, "whole_reply") == "\n" + PROGRAM


def test_a_json_reply_in_a_comment_is_hidden():
    reply = "<!-- " + json.dumps({"code": OTHER}) + " -->\n" + fenced(PROGRAM)
    assert found(reply, "fence") == PROGRAM


def test_whole_reply_keeps_its_leading_blank_lines():
    assert found("\n\n" + PROGRAM, "whole_reply") == "\n\n" + PROGRAM
    assert found("  \n" + PROGRAM, "whole_reply") == "  \n" + PROGRAM


def test_line_numbers_agree_between_validate_and_program_env():
    from spadegym import ProgramEnv
    from spadegym.errors import ProgramError
    from spadegym.validation import validate

    source = "\n\nimport os\n" + PROGRAM
    report = validate(source)
    policy = report.check("policy")
    assert policy is not None and policy.message.startswith("Line 3: import of 'os'")
    with pytest.raises(ProgramError) as caught:
        ProgramEnv(source=source)
    assert str(caught.value).startswith("Line 3: import of 'os'")


@pytest.mark.parametrize(
    "expression",
    ["-" * 3_500 + "1", "(" * 3_500 + ")" * 3_500, "[" * 3_500 + "]" * 3_500, "not " * 3_500 + "1"],
    ids=["unary_minus", "parentheses", "lists", "not"],
)
@pytest.mark.parametrize("wrap", [fenced, lambda code: code], ids=["fenced", "whole"])
def test_deep_nesting_gets_a_sentence_from_validate(expression, wrap):
    from spadegym.validation import validate

    report = validate(wrap(PROGRAM + "x = " + expression + "\n"))
    assert not report.ok
    failure = report.failures[0]
    assert failure.name in ("extract", "syntax", "policy")
    assert "nest" in failure.message
