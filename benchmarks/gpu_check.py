"""GPU check of spadegym_train at a real model's scale: every part of the GPU path, measured.

The model has Qwen3-0.6B's shapes, its 151,936-token vocabulary included, with random weights
built from a config (nothing is downloaded), or is a real model when ``--model PATH`` names
one. The tokenizer of the random model is spadegym_train's character tokenizer padded with
unused entries to the vocabulary's size: the embedding, the LM head, the log-softmax over the
vocabulary and the sampling all have their real sizes, so memory and time per token are those
of the real model. What differs: text is one token per character (a real tokenizer packs 3-4
characters into a token), so lengths here are counted in tokens, not characters; and a random
model never writes its end-of-turn token, so every sequence runs to its length limit (the
worst case a real model can reach).

One JSON line per part, then a summary:

- ``build``: the model folder (random weights saved once, or the given path);
- ``load``: 4-bit NF4 load and LoRA adapters (``spadegym_train.model.load_policy``);
- ``rollout``: the Hugging Face engine sampling a batch of solver-length replies;
- ``designer``: the same engine writing designer-length programs (the preset's prompt and
  program lengths);
- ``update``: ``spadegym_train.loss.update`` with the paged 8-bit AdamW and the KL pass to the
  base model, on the solver replies and the designer-length programs;
- ``vllm``: the vLLM engine (4-bit, the adapters loaded per request), when vLLM is installed;
- ``loop``: ``spadegym_train.loop.train``, one iteration of the tiny preset's schedule on this
  model.

Each line carries the peak memory of its part (GPU memory on CUDA; the process's peak resident
memory on a CPU). ``--device cpu --small`` runs the same code on a CPU with a 2-layer model
and a 4,096-token vocabulary: tests run it that way so the script cannot rot.

Usage: ``bash benchmarks/gpu_check.sh [--model PATH]`` (under 10 minutes on one GPU).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZES = {
    # Qwen3-0.6B: lengths are the qwen3-0.6b-4bit preset's; batches fill a large GPU a little.
    "full": {
        "vocabulary": 151_936,
        "rollout_prompts": 64,
        "rollout_prompt_tokens": 1024,
        "designer_prompts": 2,
        "vllm_prompts": 64,
    },
    # The same code on a 2-layer model: a few seconds a part on a CPU.
    "small": {
        "vocabulary": 4_096,
        "rollout_prompts": 4,
        "rollout_prompt_tokens": 48,
        "designer_prompts": 1,
        "vllm_prompts": 4,
        "generation.max_prompt_tokens": 96,
        "generation.solver_max_new_tokens": 8,
        "generation.designer_max_new_tokens": 24,
    },
}


def padded_char_tokenizer(size: int, folder: Path) -> Any:
    """spadegym_train's character tokenizer with unused entries up to ``size`` tokens.

    The entries are never produced by encoding text (the tokenizer splits text into single
    characters), only by a model that samples them; they decode to their own names.
    """
    from transformers import AutoTokenizer

    from spadegym_train.tokenizer import char_tokenizer

    char_tokenizer().save_pretrained(str(folder))
    spec_file = folder / "tokenizer.json"
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    for index in range(len(vocab), size):
        vocab[f"<|unused_{index}|>"] = index
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    if len(tokenizer) != size:
        raise RuntimeError(f"the padded tokenizer has {len(tokenizer)} tokens, not {size}")
    return tokenizer


def build_random_model(shape: dict[str, Any], vocabulary: int, seed: int, folder: Path) -> str:
    """Random weights of ``shape`` and a padded tokenizer of ``vocabulary`` tokens, on disk."""
    from spadegym_train.config import ModelConfig, TrainConfig
    from spadegym_train.model import save_random_base

    tokenizer = padded_char_tokenizer(vocabulary, folder / "tokenizer")
    config = TrainConfig(model=ModelConfig(name="random", random_config=dict(shape)), seed=seed)
    return save_random_base(config, tokenizer, folder / "base")


class Meter:
    """Wall time and peak memory of one part."""

    def __init__(self, torch: Any, cuda: bool):
        self.torch = torch
        self.cuda = cuda

    def __enter__(self) -> Meter:
        if self.cuda:
            self.torch.cuda.synchronize()
            self.torch.cuda.reset_peak_memory_stats()
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()
        self.seconds = time.perf_counter() - self.started

    def figures(self) -> dict[str, float]:
        """Seconds, and the part's peak memory in GiB."""
        out = {"seconds": round(self.seconds, 3)}
        if self.cuda:
            out["peak_gpu_gb"] = round(self.torch.cuda.max_memory_allocated() / 2**30, 3)
            out["peak_gpu_reserved_gb"] = round(self.torch.cuda.max_memory_reserved() / 2**30, 3)
        else:  # the process's peak so far: Linux reports KiB
            peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            out["peak_rss_gb"] = round(peak_kib / 2**20, 3)
        return out


def emit(check: str, **values: Any) -> None:
    """One JSON line."""
    print(json.dumps({"check": check, **values}), flush=True)


def prompts(tokenizer: Any, count: int, length: int, template_kwargs: dict) -> list[list[int]]:
    """``count`` chat prompts of exactly ``length`` tokens, each different."""
    from spadegym.corpus import default_corpus
    from spadegym.llm.tokens import encode_chat

    texts = [d.text for d in default_corpus().documents]
    out = []
    for k in range(count):
        body, j = "", k
        while len(body) < 8 * length and j < k + len(texts):  # 8 characters a token is plenty
            body, j = body + texts[j % len(texts)] + "\n\n", j + 1
        ids = encode_chat(tokenizer, [{"role": "user", "content": body}], length, template_kwargs)
        if len(ids) < length:
            raise RuntimeError(f"the corpus is too short for {length}-token prompts")
        out.append(ids)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every part and print its JSON line; exit 1 when a part fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="a real model folder (default: random)")
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    parser.add_argument("--small", action="store_true", help="a 2-layer model (CPU tests)")
    parser.add_argument("--no-vllm", action="store_true", help="skip the vLLM part")
    parser.add_argument("--no-loop", action="store_true", help="skip the training-loop part")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the files here")
    args = parser.parse_args(argv)

    import torch

    cuda = args.device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        print(
            "gpu_check: no CUDA device; run on a GPU machine or use --device cpu", file=sys.stderr
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        workdir = args.workdir or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        return run(args, torch, cuda, workdir)


def run(args: argparse.Namespace, torch: Any, cuda: bool, workdir: Path) -> int:
    """The parts, in order."""
    from spadegym_train.config import field_names, load_config
    from spadegym_train.engines import make_engine
    from spadegym_train.loss import Sample, make_optimizer, update
    from spadegym_train.model import load_policy
    from spadegym_train.presets import QWEN3_06B_SHAPE, TINY_MODEL

    started = time.perf_counter()
    sizes = SIZES["small" if args.small else "full"]
    meter = Meter(torch, cuda)

    with meter:
        if args.model:
            path = args.model
        else:
            shape = TINY_MODEL if args.small else QWEN3_06B_SHAPE
            path = build_random_model(shape, sizes["vocabulary"], 0, workdir / "model")
    emit("build", model=args.model or "random", path=path, **meter.figures())

    overrides: dict[str, Any] = {
        "model.name": path,
        "workspace": str(workdir / "run"),
        "model.device": args.device,
        "model.dtype": "bfloat16" if cuda else "float32",
        "model.load_in_4bit": True,
        "ppo.optimizer": "paged_adamw_8bit",
        "ppo.kl_coef": 0.005,
        "logging.console": False,
        "logging.tensorboard": False,
    }
    overrides.update({k: v for k, v in sizes.items() if k in field_names()})
    config = load_config(preset="qwen3-0.6b-4bit", overrides=overrides)

    with meter:
        policy = load_policy(config, config.workspace)
    parameters = sum(p.numel() for p in policy.model.parameters())
    vocabulary = policy.model.get_input_embeddings().weight.shape[0]
    emit(
        "load",
        quantization="nf4",
        parameters_stored=parameters,
        lora_parameters=sum(p.numel() for p in policy.lora_parameters()),
        vocabulary=vocabulary,
        tokenizer_tokens=len(policy.tokenizer),
        **meter.figures(),
    )

    engine = make_engine(config, policy, config.workspace)  # the preset's engine: hf
    template = config.model.chat_template_kwargs
    solver_prompts = prompts(
        policy.tokenizer, sizes["rollout_prompts"], sizes["rollout_prompt_tokens"], template
    )
    engine.generate(solver_prompts[:2], "solver", 4)  # warm-up: kernels, allocator
    with meter:
        replies = engine.generate(solver_prompts, "solver", config.generation.solver_max_new_tokens)
    emit(
        "rollout",
        **_throughput(replies, meter),
        max_new_tokens=config.generation.solver_max_new_tokens,
    )

    designer_prompts = prompts(
        policy.tokenizer, sizes["designer_prompts"], config.generation.max_prompt_tokens, template
    )
    with meter:
        programs = engine.generate(
            designer_prompts, "designer", config.generation.designer_max_new_tokens
        )
    emit(
        "designer",
        **_throughput(programs, meter),
        prompt_tokens=config.generation.max_prompt_tokens,
        max_new_tokens=config.generation.designer_max_new_tokens,
    )

    samples = [
        Sample(role, c.prompt_ids, c.response_ids or [policy.tokenizer.eos_token_id], sign)
        for role, group in (("solver", replies), ("designer", programs))
        for k, c in enumerate(group)
        for sign in [1.0 if k % 2 else -1.0]
    ]
    optimizer = make_optimizer(config, policy.lora_parameters())
    with meter:
        metrics = update(policy, optimizer, samples, config)
    trained = sum(len(s.prompt_ids) + len(s.response_ids) for s in samples)
    emit(
        "update",
        optimizer=type(optimizer).__name__,
        kl_coef=config.ppo.kl_coef,
        micro_batch_size=config.ppo.micro_batch_size,
        sequences=len(samples),
        longest_sequence=max(len(s.prompt_ids) + len(s.response_ids) for s in samples),
        tokens=trained,
        tokens_per_s=round(trained / meter.seconds, 1),
        grad_norm=metrics.get("loss/grad_norm"),
        kl=metrics.get("loss/kl"),
        **meter.figures(),
    )
    del optimizer, samples, engine
    _release(torch, cuda)  # vLLM sizes its share from the memory free when it starts
    _vllm(args, config, policy, solver_prompts[: sizes["vllm_prompts"]], meter, cuda)
    del policy
    _release(torch, cuda)
    if not args.no_loop:
        _loop(path, args, cuda, workdir, meter)
    emit(
        "summary",
        device=args.device,
        model=args.model or "random Qwen3-0.6B shape" + (" (small)" if args.small else ""),
        vocabulary=vocabulary,
        seconds=round(time.perf_counter() - started, 1),
    )
    return 0


def _release(torch: Any, cuda: bool) -> None:
    """Hand the memory of dropped objects back to the device."""
    import gc

    gc.collect()
    if cuda:
        torch.cuda.empty_cache()


def _throughput(completions: list[Any], meter: Meter) -> dict[str, Any]:
    tokens = sum(len(c.response_ids) for c in completions)
    return {
        "sequences": len(completions),
        "new_tokens": tokens,
        "tokens_per_s": round(tokens / meter.seconds, 1),
        **meter.figures(),
    }


def _vllm(
    args: argparse.Namespace,
    config: Any,
    policy: Any,
    batch: list[list[int]],
    meter: Meter,
    cuda: bool,
) -> None:
    """The vLLM engine on the same prompts, when it is installed and a GPU is here."""
    import importlib.util

    if args.no_vllm or not cuda or importlib.util.find_spec("vllm") is None:
        reason = "--no-vllm" if args.no_vllm else "no CUDA" if not cuda else "not installed"
        emit("vllm", skipped=reason)
        return
    from spadegym_train.engines import make_engine

    with meter:
        engine = make_engine(dataclasses.replace(config, engine="vllm"), policy, config.workspace)
    start_s = meter.seconds
    try:
        engine.generate(batch[:2], "solver", 4)
        with meter:
            replies = engine.generate(batch, "solver", config.generation.solver_max_new_tokens)
        figures = _throughput(replies, meter)
        with meter:
            engine.sync(1)
        emit("vllm", start_seconds=round(start_s, 1), sync_seconds=meter.seconds, **figures)
    finally:
        engine.close()


def _loop(path: str, args: argparse.Namespace, cuda: bool, workdir: Path, meter: Meter) -> None:
    """One iteration of the training loop on this model (the tiny preset's schedule)."""
    import torch

    from spadegym_train.config import load_config
    from spadegym_train.loop import train

    config = load_config(
        preset="tiny-cpu",
        overrides={
            "model.name": path,
            "workspace": str(workdir / "loop"),
            "model.device": args.device,
            "model.dtype": "bfloat16" if cuda else "float32",
            "model.load_in_4bit": True,
            "model.torch_threads": 0 if cuda else 1,
            "iterations": 1,
            "logging.console": False,
            "logging.tensorboard": False,
        },
    )
    torch.manual_seed(0)
    with meter:
        history = train(config)
    emit(
        "loop",
        iterations=len(history),
        mode=config.mode,
        samples=history[-1].get("loss/samples"),
        **meter.figures(),
    )


if __name__ == "__main__":
    sys.exit(main())
