from __future__ import annotations

from pathlib import Path

from spadegym.play import HintRequest
from spadegym_train.hinter import Hinter, make_hinter
from spadegym_train.model import load_policy

ROOT = Path(__file__).resolve().parent.parent.parent
LOCK = (ROOT / "examples" / "good" / "lock_pick.py").read_text()


def _request(solution=("\\boxed{417}",)):
    return HintRequest("lock", LOCK, "A 3-digit lock. Guess with \\boxed{ddd}.", list(solution))


def test_hints_that_leak_the_instance_solution_are_rejected_and_counted():
    replies = iter(["Change one digit at a time.", "The code is 417.", "x " * 400])
    hinter = Hinter(lambda requests: [next(replies) for _ in requests])
    hints = hinter([_request(), _request(), _request()])
    assert hints == ["Change one digit at a time.", None, None]
    assert hinter.counts.take() == {
        "designer/hints_asked": 3.0,
        "designer/hints_kept": 1.0,
        "designer/hint_leaks": 1.0,  # the second: fine alone, it gives the solution away
        "designer/hints_rejected": 2.0,  # the third is too long
    }
    assert hinter.counts.asked == 0  # taken


def test_the_hinter_reads_the_code_with_the_adapters_disabled(tiny):
    from spadegym_train.engines.hf import HFEngine

    config = tiny(max_prompt_tokens=8192)  # the character tokenizer: a token per character
    policy = load_policy(config, config.workspace)
    engine = HFEngine(config, policy)
    seen = []
    generate = engine.generate
    real = policy.reference

    def reference():
        seen.append("adapters disabled")
        return real()

    def spy(prompts, role, max_new_tokens):
        seen.append(role)
        seen.extend(policy.tokenizer.decode(p) for p in prompts)
        return generate(prompts, role, max_new_tokens)

    policy.reference = reference
    engine.generate = spy
    hinter = make_hinter(config, engine, policy.tokenizer)
    assert config.hint_source == "hinter" and hinter is not None
    hinter([_request()])
    role, prompt, disabled = seen
    assert role == "base" and disabled == "adapters disabled"
    assert "class LockPickEnv" in prompt  # the program's code
    assert "A 3-digit lock. Guess with" in prompt  # the instance's first observation


def test_program_hints_need_no_hinter(tiny):
    assert make_hinter(tiny(hint_source="program"), None, None) is None
