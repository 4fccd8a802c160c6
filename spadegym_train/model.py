"""The policy: one base model (4-bit NF4 on request) with LoRA adapters, and its reference.

One shared adapter serves the designer and the solver by default; with
``lora.separate_adapters`` they get one each. The hint writer uses no adapter: it is the base model
with its adapters disabled (``engines.base.BASE_ROLE``), so training never shapes it
(``hinter``). The reference policy of the optional KL term is that same adapter-free model, so
no second copy is held. LoRA is never merged into the base: merging into 4-bit
weights rounds the update away and the error accumulates over steps.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from spadegym.errors import ConfigError
from spadegym_train.config import RANDOM_MODEL, TrainConfig

ROLES = ("designer", "solver")


def resolve_device(config: TrainConfig) -> torch.device:
    """The device ``config.model.device`` names (``"auto"``: CUDA when available)."""
    if config.model.device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(config.model.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            f"model.device={config.model.device!r} but CUDA is not available here; use "
            "model.device=cpu (and preset tiny-cpu) or run on a GPU machine."
        )
    return device


def compute_dtype(config: TrainConfig, device: torch.device) -> torch.dtype:
    """bfloat16 on CUDA and float32 on CPU unless ``config.model.dtype`` names one."""
    if config.model.dtype == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    return getattr(torch, config.model.dtype)


@dataclass
class Policy:
    """The trainable model, its tokenizer, and which adapter serves which role.

    Attributes:
        model: a peft ``PeftModel`` around the base model.
        tokenizer: the chat tokenizer (left padding).
        device: where the model lives.
        adapters: role -> adapter name (``"shared"`` for both, or one per role).
        base_path: where the base model was loaded from (vLLM loads the same files).
    """

    model: Any
    tokenizer: Any
    device: torch.device
    adapters: dict[str, str]
    base_path: str

    def use(self, role: str) -> None:
        """Activate the adapter of ``role`` (``designer`` or ``solver``)."""
        self.model.set_adapter(self.adapter_for(role))

    def adapter_for(self, role: str) -> str:
        """The adapter name that serves ``role`` (the hint writer has none: ``reference``)."""
        return self.adapters[role]

    @contextlib.contextmanager
    def reference(self) -> Iterator[None]:
        """Inside this block the model is the base model (adapters disabled)."""
        with self.model.disable_adapter():
            yield

    def lora_parameters(self) -> list[torch.nn.Parameter]:
        """Every LoRA weight of every adapter (the only weights the optimizer sees)."""
        return [p for n, p in self.model.named_parameters() if "lora_" in n]

    def adapter_state(self) -> dict[str, dict[str, torch.Tensor]]:
        """Adapter name -> its LoRA weights (CPU copies)."""
        from peft import get_peft_model_state_dict

        return {
            name: {
                k: v.detach().cpu().clone()
                for k, v in get_peft_model_state_dict(self.model, adapter_name=name).items()
            }
            for name in sorted(set(self.adapters.values()))
        }

    def load_adapter_state(self, state: dict[str, dict[str, torch.Tensor]]) -> None:
        """Restore weights saved by ``adapter_state``."""
        from peft import set_peft_model_state_dict

        for name, weights in state.items():
            set_peft_model_state_dict(self.model, weights, adapter_name=name)

    def save_adapters(self, folder: str | Path) -> dict[str, str]:
        """Write each adapter in peft's format (what vLLM loads); returns name -> folder."""
        folder = Path(folder)
        names = sorted(set(self.adapters.values()))
        self.model.save_pretrained(str(folder), selected_adapters=names)
        # peft writes the first adapter at the top when it is named "default", else in a subfolder.
        return {n: str(folder / n) if (folder / n).exists() else str(folder) for n in names}


def build_tokenizer(config: TrainConfig) -> Any:
    """The tokenizer of ``config.model.name`` (the character tokenizer for a random model)."""
    if config.model.name == RANDOM_MODEL:
        from spadegym_train.tokenizer import char_tokenizer

        return char_tokenizer()
    from spadegym.llm.local_model import load_tokenizer, resolve_local_model

    return load_tokenizer(resolve_local_model(config.model.name))


def base_model_path(config: TrainConfig, tokenizer: Any, workspace: Path) -> str:
    """Where ``from_pretrained`` reads the base model: a folder or hub name.

    A random model and a GGUF file (``smollm2``, ``gguf:<file>``) are first written to
    ``workspace/base`` as an ordinary checkpoint, once, so that they take the same path as
    any other model: 4-bit quantisation (which transformers cannot apply while reading GGUF),
    device placement, and vLLM all read plain files.
    """
    folder = workspace / "base"
    if config.model.name == RANDOM_MODEL:
        return save_random_base(config, tokenizer, folder)
    from spadegym.llm.local_model import load_trainable_causal_lm, resolve_local_model

    local = resolve_local_model(config.model.name)
    if local.gguf_file is None:
        return local.path
    if not (folder / "config.json").exists():
        model = load_trainable_causal_lm(local, dtype=torch.float32)
        folder.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(str(folder))
        tokenizer.save_pretrained(str(folder))
    return str(folder)


def save_random_base(config: TrainConfig, tokenizer: Any, folder: Path) -> str:
    """Build the random model of ``config`` (seeded) and save it, unless already saved.

    Saving first lets the random model go through the same ``from_pretrained`` path as a real
    one: 4-bit quantisation, device placement, and vLLM all read files.
    """
    if (folder / "config.json").exists():
        return str(folder)
    from transformers import AutoConfig, AutoModelForCausalLM

    fields = dict(config.model.random_config)
    model_type = fields.pop("model_type")
    model_config = AutoConfig.for_model(
        model_type,
        vocab_size=len(tokenizer),
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        **fields,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        model = AutoModelForCausalLM.from_config(model_config, dtype=torch.float32)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return str(folder)


def keep_4bit_differentiable(model: torch.nn.Module) -> None:
    """Stop bitsandbytes repacking 4-bit weights for CPU inference.

    On a CPU with AVX512-BF16, bitsandbytes (0.50) repacks a ``Linear4bit``'s weight at its
    first eval-mode forward and from then on multiplies with ``gemv_4bit``, which has no
    backward: every later training step silently drops the gradient through the frozen base
    layers, so the LoRA weights below them get wrong gradients (its warning "an autograd
    kernel was not registered"). Generation is an eval-mode forward, so a trainer hits this
    from its first update. CUDA is not affected.
    """
    import bitsandbytes as bnb

    for module in model.modules():
        if isinstance(module, bnb.nn.Linear4bit):
            module.support_avx512bf16_for_cpu = False


def load_policy(config: TrainConfig, workspace: str | Path) -> Policy:
    """Load the base model (4-bit when asked), attach LoRA adapters, set up checkpointing.

    Args:
        config: the run's configuration.
        workspace: the run folder; a random or GGUF base model is saved under ``base/``.

    Returns:
        The policy, in eval mode, with the solver's adapter active.
    """
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    device = resolve_device(config)
    dtype = compute_dtype(config, device)
    tokenizer = build_tokenizer(config)
    path = base_model_path(config, tokenizer, Path(workspace))
    kwargs: dict[str, Any] = {"dtype": dtype}
    if config.model.load_in_4bit:
        from transformers import BitsAndBytesConfig

        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=config.model.bnb_double_quant,
            bnb_4bit_compute_dtype=dtype,
        )
        kwargs["device_map"] = {"": device.index or 0} if device.type == "cuda" else {"": "cpu"}
    model: Any = AutoModelForCausalLM.from_pretrained(path, **kwargs)  # then the peft wrapper
    if not config.model.load_in_4bit:
        model.to(device)
    if config.model.load_in_4bit and device.type == "cpu":
        keep_4bit_differentiable(model)
    if config.model.load_in_4bit:
        model = prepare_model_for_kbit_training(
            model,
            use_gradient_checkpointing=config.model.gradient_checkpointing,
            gradient_checkpointing_kwargs={"use_reentrant": False},
        )
    elif config.model.gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    lora = LoraConfig(
        r=config.lora.r,
        lora_alpha=config.lora.alpha,
        lora_dropout=config.lora.dropout,
        target_modules=list(config.lora.target_modules),
        bias="none",
        task_type="CAUSAL_LM",
    )
    adapters = (
        {"designer": "designer", "solver": "solver"}
        if config.lora.separate_adapters
        else {"designer": "shared", "solver": "shared"}
    )
    names = sorted(set(adapters.values()))
    torch.manual_seed(config.seed)  # LoRA A matrices are random: make them the seed's
    with warnings.catch_warnings():
        # peft reads transformers' deprecated alias ``is_gradient_checkpointing``.
        warnings.filterwarnings("ignore", ".*is_gradient_checkpointing", FutureWarning)
        model = get_peft_model(model, lora, adapter_name=names[0])
    for name in names[1:]:
        model.add_adapter(name, lora)
    for param_name, param in model.named_parameters():
        param.requires_grad = "lora_" in param_name
    model.eval()
    policy = Policy(
        model=model, tokenizer=tokenizer, device=device, adapters=adapters, base_path=str(path)
    )
    policy.use("solver")
    return policy


def base_weights(policy: Policy) -> dict[str, torch.Tensor]:
    """Copies of every non-LoRA parameter (tests check that training leaves them alone)."""
    return {
        n: p.detach().cpu().clone() for n, p in policy.model.named_parameters() if "lora_" not in n
    }
