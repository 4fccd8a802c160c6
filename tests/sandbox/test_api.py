"""The sandbox's request API is public: nothing outside the package needs its private names."""

from __future__ import annotations

import ast
from pathlib import Path

from spadegym.sandbox import SandboxWorker, answer_or_error, answer_value, exchange_many, protocol

ROOT = Path(__file__).resolve().parents[2]


def test_no_module_outside_the_sandbox_imports_its_private_names():
    offenders = []
    for path in [*ROOT.glob("spadegym/**/*.py"), *ROOT.glob("spadegym_train/**/*.py")]:
        if "sandbox" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "spadegym.sandbox"
            ):
                offenders += [f"{path.name}: {a.name}" for a in node.names if a.name[0] == "_"]
    assert offenders == []


def test_requests_answers_and_batches_through_the_public_api(lock_pick):
    first, second = SandboxWorker(), SandboxWorker()
    try:
        loads = [protocol.load_request(lock_pick, "lock")] * 2
        infos = [
            answer_value(request, answer)
            for request, answer in zip(
                loads, exchange_many([(first, loads[0]), (second, loads[1])])
            )
        ]
        assert [info.class_name for info in infos] == ["LockPickEnv"] * 2
        creates = [protocol.new_request(infos[0].program)] * 2
        (a, b) = [answer_value(r, x) for r, x in zip(creates, first.exchange(creates))]
        resets = [protocol.reset_request(a, 3), protocol.reset_request(b, 3)]
        (reset_a, reset_b) = [answer_value(r, x) for r, x in zip(resets, first.exchange(resets))]
        assert reset_a == reset_b and "3-digit lock" in reset_a[0]
        bad = protocol.step_request(a, "\\boxed{abc}")
        hint = protocol.hint_request(b)
        step, hinted = [
            answer_or_error(r, x) for r, x in zip([bad, hint], first.exchange([bad, hint]))
        ]
        assert step.reward == 0.0 and hinted.startswith("Change one digit")
        missing = protocol.solution_request(999)
        (refused,) = first.exchange([missing])
        assert answer_or_error(missing, refused).kind == "protocol"
    finally:
        first.close()
        second.close()
