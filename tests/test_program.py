"""Tests for spadegym.program: the helpers and the ToolEnv base class that programs import."""

from __future__ import annotations

import json

import pytest

from spadegym.program import (
    ToolEnv,
    extract_answer,
    extract_boxed,
    parse_tool_calls,
    read_difficulty,
)

# --- extract_boxed ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The answer is \\boxed{42}.", "42"),
        ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("\\boxed{{a}{b{c}}}", "{a}{b{c}}"),
        ("first \\boxed{1} then \\boxed{2}", "2"),
        ("\\boxed{7} and an unclosed \\boxed{8", "7"),
        ("\\boxed{5} then \\boxed{6 {unbalanced}", "5"),
        ("\\boxed{  spaced out \n}", "spaced out"),
        ("\\boxed{}", ""),
        ("\\boxed{ \t }", ""),
        ("\\boxed{outer \\boxed{inner}}", "inner"),
    ],
)
def test_extract_boxed(text, expected):
    assert extract_boxed(text) == expected


@pytest.mark.parametrize(
    "text", ["", "no box here", "\\boxed{never closed", "\\boxed 3", "boxed{3}"]
)
def test_extract_boxed_none_without_a_closed_box(text):
    assert extract_boxed(text) is None


@pytest.mark.parametrize("value", [None, 42, b"\\boxed{1}", ["\\boxed{1}"]])
def test_extract_boxed_non_string(value):
    assert extract_boxed(value) is None


# --- parse_tool_calls ------------------------------------------------------------------------


def call(payload: object) -> str:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return f"<tool_call>{text}</tool_call>"


def test_parse_tool_calls_well_formed():
    reply = "Let me look.\n" + call({"name": "lookup", "arguments": {"key": "a", "n": 2}})
    assert parse_tool_calls(reply) == [{"name": "lookup", "arguments": {"key": "a", "n": 2}}]


def test_parse_tool_calls_whitespace_inside_block():
    reply = '<tool_call>\n  {"name": "ping", "arguments": {}}  \n</tool_call>'
    assert parse_tool_calls(reply) == [{"name": "ping", "arguments": {}}]


@pytest.mark.parametrize(
    "arguments", [None, "", "  ", "null"], ids=["absent", "empty", "blank", "null"]
)
def test_parse_tool_calls_missing_arguments_are_empty(arguments):
    payload: dict = {"name": "ping"}
    if arguments is not None:
        payload["arguments"] = arguments
    assert parse_tool_calls(call(payload)) == [{"name": "ping", "arguments": {}}]


def test_parse_tool_calls_string_encoded_arguments():
    payload = {"name": "add", "arguments": json.dumps({"item": "apple", "qty": 3})}
    assert parse_tool_calls(call(payload)) == [
        {"name": "add", "arguments": {"item": "apple", "qty": 3}}
    ]


@pytest.mark.parametrize(
    "block",
    [
        "not json",
        '{"name": "x", "arguments": {}',
        '["name", "x"]',
        '{"arguments": {}}',
        '{"name": 3, "arguments": {}}',
        '{"name": "x", "arguments": [1, 2]}',
        '{"name": "x", "arguments": "{broken"}',
        '{"name": "x", "arguments": "[1]"}',
        "",
    ],
)
def test_parse_tool_calls_skips_malformed_blocks(block):
    reply = call(block) + call({"name": "ok", "arguments": {}})
    assert parse_tool_calls(reply) == [{"name": "ok", "arguments": {}}]


def test_parse_tool_calls_several_blocks_in_order():
    reply = (
        call({"name": "a", "arguments": {"i": 1}})
        + " some text "
        + call({"name": "b", "arguments": {"i": 2}})
        + "\n"
        + call({"name": "a", "arguments": {"i": 3}})
    )
    assert [(c["name"], c["arguments"]["i"]) for c in parse_tool_calls(reply)] == [
        ("a", 1),
        ("b", 2),
        ("a", 3),
    ]


def test_parse_tool_calls_unclosed_block_and_non_string():
    assert parse_tool_calls('<tool_call>{"name": "a", "arguments": {}}') == []
    assert parse_tool_calls(None) == []
    assert parse_tool_calls(123) == []


# --- extract_answer --------------------------------------------------------------------------


def test_extract_answer():
    assert extract_answer("<answer> 12 </answer>") == "12"
    assert extract_answer("<answer>1</answer> no, <answer>2</answer>") == "2"
    assert extract_answer("<answer>\nline one\nline two\n</answer>") == "line one\nline two"
    assert extract_answer("<answer></answer>") == ""


@pytest.mark.parametrize("text", ["", "answer: 3", "<answer>3", "3</answer>", None, 7])
def test_extract_answer_none(text):
    assert extract_answer(text) is None


# --- ToolEnv ---------------------------------------------------------------------------------


class ShopEnv(ToolEnv):
    """A cart: add and remove items, then answer with the total price."""

    max_turns = 5
    tools = [
        {
            "name": "add",
            "description": "Add qty of an item to the cart.",
            "parameters": {
                "type": "object",
                "properties": {"item": {"type": "string"}, "qty": {"type": "integer"}},
                "required": ["item", "qty"],
            },
        },
        {
            "name": "remove",
            "description": "Remove an item from the cart.",
            "parameters": {"type": "object", "properties": {"item": {"type": "string"}}},
        },
        {"name": "total", "description": "The cart's total price.", "parameters": {}},
        {"name": "ghost", "description": "Declared, never implemented.", "parameters": {}},
        {"name": "bad-name", "description": "Not a valid tool name.", "parameters": {}},
        "not a spec",
    ]
    prices = {"apple": 2, "pear": 3}

    def reset(self, seed=None, options=None):
        self.cart = {}
        return "Fill the cart.\n" + self.describe_tools(), {}

    def tool_add(self, item, qty):
        if item not in self.prices:
            raise ValueError(f"no such item: {item}")
        self.cart[item] = self.cart.get(item, 0) + qty
        return {"cart": dict(self.cart)}

    def tool_remove(self, item):
        self.cart.pop(item)
        return "removed"

    def tool_total(self):
        return sum(self.prices[k] * n for k, n in self.cart.items())

    def check(self, answer):
        wanted = self.cart == {"apple": 2, "pear": 1}
        return 1.0 if wanted and answer == str(self.tool_total()) else 0.0

    def solution(self):
        return [
            call({"name": "add", "arguments": {"item": "apple", "qty": 2}})
            + call({"name": "add", "arguments": {"item": "pear", "qty": 1}}),
            "<answer>7</answer>",
        ]


def response(name: str, key: str, value: object) -> str:
    return f"<tool_response>\n{json.dumps({'name': name, key: value})}\n</tool_response>"


@pytest.fixture
def env() -> ShopEnv:
    shop = ShopEnv()
    shop.reset(seed=0)
    return shop


def test_tool_names_skip_malformed_specs(env):
    assert env.tool_names() == ["add", "remove", "total", "ghost", "bad-name"]


def test_describe_tools_is_one_json_line_per_spec(env):
    lines = env.describe_tools().splitlines()
    assert len(lines) == len(ShopEnv.tools)
    assert json.loads(lines[0])["name"] == "add"


def test_step_runs_a_tool_and_changes_state(env):
    reply = call({"name": "add", "arguments": {"item": "apple", "qty": 2}})
    assert env.step(reply) == (
        response("add", "result", {"cart": {"apple": 2}}),
        0.0,
        False,
        False,
        {},
    )
    assert env.cart == {"apple": 2}


def test_step_unknown_tool(env):
    observation, reward, terminated, truncated, info = env.step(call({"name": "fly"}))
    available = "add, remove, total, ghost, bad-name"
    assert observation == response("fly", "error", f"unknown tool; available tools: {available}")
    assert (reward, terminated, truncated, info) == (0.0, False, False, {})


def test_step_refuses_names_that_are_not_identifiers_even_if_declared(env):
    observation = env.step(call({"name": "bad-name"}))[0]
    assert '"error": "unknown tool; available tools:' in observation


def test_step_declared_but_not_implemented(env):
    observation = env.step(call({"name": "ghost"}))[0]
    assert observation == response("ghost", "error", "this tool is declared but not implemented")


@pytest.mark.parametrize(
    "arguments",
    [{}, {"item": "apple"}, {"item": "apple", "qty": 1, "colour": "red"}],
    ids=["none", "missing", "unexpected"],
)
def test_step_bad_arguments(env, arguments):
    observation, reward, terminated, _, _ = env.step(call({"name": "add", "arguments": arguments}))
    error = json.loads(observation.split("\n")[1])["error"]
    assert error.startswith("bad arguments: ")
    assert "tool_add()" in error
    assert (reward, terminated) == (0.0, False)
    assert env.cart == {}


def test_step_tool_that_raises(env):
    observation = env.step(call({"name": "add", "arguments": {"item": "kiwi", "qty": 1}}))[0]
    assert observation == response("add", "error", "ValueError: no such item: kiwi")
    observation = env.step(call({"name": "remove", "arguments": {"item": "kiwi"}}))[0]
    assert observation == response("remove", "error", "KeyError: 'kiwi'")


def test_step_malformed_block_is_reported_and_the_rest_still_run(env):
    reply = call("{oops") + call({"name": "total"}) + call('{"name": 1}')
    observation, reward, terminated, _, _ = env.step(reply)
    assert observation.split("\n") == [
        "<tool_response>",
        '{"name": "total", "result": 0}',
        "</tool_response>",
        '2 <tool_call> block(s) were not valid JSON objects of the form {"name": ..., '
        '"arguments": {...}} and were skipped.',
    ]
    assert (reward, terminated) == (0.0, False)


def test_step_answer_is_judged_by_check_and_ends_the_episode(env):
    env.cart = {"apple": 2, "pear": 1}
    assert env.step("I am done. <answer> 7 </answer>") == (
        "Answer submitted. Score: 1.0.",
        1.0,
        True,
        False,
        {},
    )
    env.reset()
    assert env.step("<answer>7</answer>") == ("Answer submitted. Score: 0.0.", 0.0, True, False, {})


def test_step_tool_calls_run_before_the_answer_in_the_same_reply(env):
    reply = (
        call({"name": "add", "arguments": {"item": "apple", "qty": 2}})
        + call({"name": "add", "arguments": {"item": "pear", "qty": 1}})
        + "<answer>7</answer>"
    )
    observation, reward, terminated, truncated, _ = env.step(reply)
    lines = observation.split("\n")
    assert lines[1] == '{"name": "add", "result": {"cart": {"apple": 2}}}'
    assert lines[4] == '{"name": "add", "result": {"cart": {"apple": 2, "pear": 1}}}'
    assert lines[-1] == "Answer submitted. Score: 1.0."
    assert (reward, terminated, truncated) == (1.0, True, False)


def test_step_solution_wins(env):
    results = [env.step(action) for action in env.solution()]
    assert [r[1:3] for r in results] == [(0.0, False), (1.0, True)]


@pytest.mark.parametrize("action", ["", "I would add an apple.", "<tool_call>", None])
def test_step_reply_with_neither_tool_call_nor_answer(env, action):
    assert env.step(action) == (
        "No tool call or answer found. Call a tool with "
        '<tool_call>{"name": "...", "arguments": {...}}</tool_call> '
        "or finish with <answer>...</answer>.",
        0.0,
        False,
        False,
        {},
    )


def test_tool_result_that_is_not_json_is_shown_by_repr(env):
    env.tool_total = lambda: {1, 2}
    observation = env.step(call({"name": "total"}))[0]
    assert json.loads(observation.split("\n")[1]) == {"name": "total", "result": "{1, 2}"}


def test_base_check_must_be_overridden():
    with pytest.raises(NotImplementedError, match="must define check"):
        ToolEnv().check("x")


# --- cost on degenerate replies --------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "text"),
    [
        (extract_boxed, "\\boxed{" * 1500),
        (parse_tool_calls, "<tool_call>" * 3000),
        (extract_answer, "<answer>" * 3000),
    ],
    ids=["boxed", "tool_call", "answer"],
)
def test_unclosed_openers_on_a_degenerate_reply(fn, text):
    # Unclosed openers repeated through a 64 KiB reply: found nothing, and (since the scans
    # are linear) in milliseconds; a quadratic scan would take tens of seconds here.
    assert fn(text * 20) in (None, [])


# --- deep and huge replies never raise ----------------------------------------------------------

DEEP = 100_000


@pytest.mark.parametrize(
    "payload",
    [
        "[" * DEEP + "]" * DEEP,
        '{"name": "look", "arguments": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}",
        '{"name": "look", "arguments": "' + "[" * DEEP + "]" * DEEP + '"}',
    ],
    ids=["deep_call", "deep_arguments", "deep_string_arguments"],
)
def test_parse_tool_calls_skips_blocks_too_deep_to_decode(payload):
    good = '<tool_call>{"name": "look", "arguments": {"x": 1}}</tool_call>'
    reply = f"<tool_call>{payload}</tool_call>{good}"
    assert parse_tool_calls(reply) == [{"name": "look", "arguments": {"x": 1}}]


def test_tool_env_step_reports_a_block_too_deep_to_decode(env):
    reply = "<tool_call>" + "[" * DEEP + "]" * DEEP + "</tool_call>"
    observation, reward, terminated, _, _ = env.step(reply)
    assert "1 <tool_call> block(s) were not valid JSON objects" in observation
    assert (reward, terminated) == (0.0, False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\\boxed{" + "{" * DEEP + "x" + "}" * DEEP + "}", "{" * DEEP + "x" + "}" * DEEP),
        ("\\boxed{" * DEEP, None),
        ("\\boxed{1}" + "\\boxed{" * DEEP, "1"),
        ("x" * 1_000_000 + "\\boxed{7}", "7"),
    ],
    ids=["deep_braces", "many_unclosed", "closed_then_unclosed", "huge"],
)
def test_extract_boxed_on_deep_and_huge_replies(text, expected):
    assert extract_boxed(text) == expected


# --- read_difficulty ---------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", [1, 2, 3, 4, 5])
def test_read_difficulty_reads_valid_difficulties(difficulty):
    assert read_difficulty({"difficulty": difficulty}) == difficulty
    assert read_difficulty({"difficulty": difficulty}, default=1) == difficulty


@pytest.mark.parametrize(
    "options",
    [
        None,
        {},
        {"difficulty": None},
        {"difficulty": True},
        {"difficulty": False},
        {"difficulty": 2.0},
        {"difficulty": "2"},
        {"difficulty": 0},
        {"difficulty": 6},
        {"difficulty": -1},
        {"level": 2},
        [("difficulty", 2)],
        "difficulty=2",
    ],
)
def test_read_difficulty_gives_the_default_for_anything_else(options):
    assert read_difficulty(options) == 3
    assert read_difficulty(options, default=2) == 2
