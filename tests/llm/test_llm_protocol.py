"""Every chat backend implements ``ChatLLM`` (the protocol ``generate``, eval and play use)."""

from __future__ import annotations

import pytest
from protocol_check import protocol_gaps

from spadegym.llm.base import ChatLLM
from spadegym.llm.openai_chat import OpenAIChat
from spadegym.llm.replay import RecordingChat, ReplayChat
from spadegym.llm.transformers_chat import TransformersChat


@pytest.mark.parametrize("backend", [OpenAIChat, ReplayChat, RecordingChat, TransformersChat])
def test_backends_implement_chat_llm(backend):
    assert protocol_gaps(ChatLLM, backend) == []


def test_an_async_mismatch_is_a_gap():
    class Blocking:
        name = "blocking"

        def complete(self, messages, n=1):
            return [""] * n

        def acomplete(self, messages, n=1):  # not a coroutine function
            return [""] * n

    assert protocol_gaps(ChatLLM, Blocking) == ["acomplete: async in one and not the other"]
