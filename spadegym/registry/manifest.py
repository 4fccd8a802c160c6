"""``manifest.json``: what the registry knows about one environment, as a versioned schema.

A manifest is written once when an environment is added, rewritten by ``verify --fix`` and when
play statistics arrive, and read whenever the registry index is rebuilt. ``schema_version``
lets older registries keep loading: a manifest of an older schema is migrated on read (see
``MIGRATIONS``), unknown fields are kept as they are, and a manifest of a newer schema is
refused with a message that says to upgrade.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from spadegym import contract
from spadegym.registry.errors import RegistryError

SCHEMA_VERSION = 1
"""The manifest schema this spadegym writes."""

MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}
"""``MIGRATIONS[n]`` turns a schema-``n`` manifest dict into a schema-``n + 1`` one. Schema 1 is
the first, so there is nothing to migrate yet; a change to the schema adds an entry here."""

SUMMARY_PROPERTIES = (
    "multi_turn",
    "solution_turns",
    "step_ms_median",
    "step_ms_max",
    "peak_memory_mb",
    "novelty",
    "floor",
    "floor_shortcut",
)
"""Validation properties worth keeping in the manifest (the hint text is privileged: left out)."""


def sha256_of(program: bytes | str) -> str:
    """The sha256 hex digest of a program's UTF-8 bytes."""
    data = program.encode("utf-8", "surrogatepass") if isinstance(program, str) else program
    return hashlib.sha256(data).hexdigest()


def now() -> str:
    """The current UTC time, ISO 8601, to the second."""
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


def _package_version() -> str:
    from spadegym import __version__

    return __version__


class Provenance(BaseModel):
    """Where an environment came from. Extra keys (a run id, a prompt hash) are kept."""

    model_config = ConfigDict(extra="allow")

    designer: str | None = None
    """The designer model that wrote the program (``None`` for a human)."""
    document_id: str | None = None
    """The grounding document the designer was given."""
    parents: list[str] = Field(default_factory=list)
    """Ids of environments this one was derived from (an earlier version, a repaired one)."""
    origin: str | None = None
    """How it entered this registry: ``"add"``, ``"import"``, ``"verify"``, ``"generate"``."""


class ValidationSummary(BaseModel):
    """The verdict of the validation battery when the program was (re)validated."""

    model_config = ConfigDict(extra="allow")

    ok: bool
    passed: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    validated_at: str = ""
    properties: dict[str, Any] = Field(default_factory=dict)


class PlayStatistics(BaseModel):
    """Play statistics, filled in by the memory and the trainer. Extra keys are kept."""

    model_config = ConfigDict(extra="allow")

    plays: int = 0
    win_rate_plain: float | None = None
    win_rate_hint: float | None = None
    regret: float | None = None
    updated: str | None = None


class Manifest(BaseModel):
    """Everything recorded about one registered environment (``<Name>-v<N>/manifest.json``)."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    id: str
    """The Gymnasium id, ``spade/<Name>-v<N>``; its last part is the folder name."""
    title: str
    description: str = ""
    skill: str | None = None
    kind: Literal["puzzle", "tool", "two_player"]
    num_players: int = Field(default=1, ge=1, le=2)
    max_turns: int = Field(ge=contract.MIN_TURNS, le=contract.MAX_TURNS)
    class_name: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """sha256 of ``env.py``'s bytes; a program that no longer matches is refused at load."""
    created: str
    first_observation: str = ""
    provenance: Provenance = Field(default_factory=Provenance)
    validation: ValidationSummary
    stats: PlayStatistics = Field(default_factory=PlayStatistics)
    spadegym_version: str = ""
    contract_version: str = contract.CONTRACT_VERSION

    @property
    def floor(self) -> float | None:
        """The chance floor validation measured: the best shortcut solver's mean outcome.

        ``None`` for two-player games and for manifests written before the floor existed.
        """
        value = self.validation.properties.get("floor")
        return float(value) if type(value) is int or type(value) is float else None

    @property
    def folder(self) -> str:
        """The folder name, ``<Name>-v<N>``."""
        return self.id.rsplit("/", 1)[-1]

    def to_json(self) -> str:
        """The manifest as indented JSON, the way it is stored."""
        return self.model_dump_json(indent=2) + "\n"


def parse_manifest(data: dict[str, Any] | str | bytes) -> Manifest:
    """Read a manifest of this schema or an older one.

    Raises:
        RegistryError: not JSON, not a valid manifest, or written by a newer spadegym.
    """
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise RegistryError(f"manifest.json is not JSON ({exc}).") from None
        except RecursionError:
            raise RegistryError(
                "manifest.json nests its JSON too deeply to read (a real one is a few levels deep)."
            ) from None
    if not isinstance(data, dict):
        raise RegistryError("manifest.json must hold a JSON object.")
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version < 1:
        raise RegistryError(f"schema_version={version!r} is not a schema version (an int >= 1).")
    if version > SCHEMA_VERSION:
        raise RegistryError(
            f"manifest schema {version} was written by a newer spadegym (this one "
            f"reads up to {SCHEMA_VERSION}); upgrade spadegym."
        )
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](dict(data))
        version += 1
        data["schema_version"] = version
    try:
        return Manifest.model_validate(data)
    except RecursionError:
        raise RegistryError("manifest.json nests its values too deeply to read.") from None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'manifest'}: {e['msg']}"
            for e in exc.errors()[:5]
        )
        raise RegistryError(f"manifest.json is not a valid manifest ({problems}).") from None


def summarize_report(report: Any) -> ValidationSummary:
    """The manifest's summary of a ``ValidationReport``."""
    return ValidationSummary(
        ok=bool(report.ok),
        passed=[c.name for c in report.checks if c.passed],
        failed=[c.name for c in report.checks if not c.passed],
        seconds=float(report.seconds),
        validated_at=now(),
        properties={
            k: v for k, v in report.properties.to_dict().items() if k in SUMMARY_PROPERTIES
        },
    )


def build_manifest(
    env_id: str,
    program: str,
    report: Any,
    *,
    provenance: Provenance | dict[str, Any] | None = None,
    created: str | None = None,
    stats: PlayStatistics | dict[str, Any] | None = None,
    novelty: dict[str, Any] | None = None,
) -> Manifest:
    """A manifest for ``program`` from its passing validation report.

    Args:
        env_id: the Gymnasium id, ``spade/<Name>-v<N>``.
        program: the program text exactly as stored in ``env.py``.
        report: the program's ``ValidationReport``.
        provenance: where it came from.
        created: keep an earlier creation time (``verify --fix`` rewrites keep it).
        stats: keep earlier play statistics.
        novelty: the memory's verdict (``nearest_id``, ``similarity``), kept in the summary.
    """
    props = report.properties
    validation = summarize_report(report)
    if novelty is not None:
        validation.properties["novelty"] = novelty
    return Manifest(
        id=env_id,
        title=props.title or report.class_name or env_id,
        description=props.description or "",
        skill=props.skill,
        kind=props.kind or "puzzle",
        num_players=props.num_players or 1,
        max_turns=props.max_turns,
        class_name=report.class_name or "",
        sha256=sha256_of(program),
        created=created or now(),
        first_observation=props.first_observation or "",
        provenance=Provenance.model_validate(provenance or {})
        if not isinstance(provenance, Provenance)
        else provenance,
        validation=validation,
        stats=PlayStatistics.model_validate(stats or {})
        if not isinstance(stats, PlayStatistics)
        else stats,
        spadegym_version=_package_version(),
        contract_version=contract.CONTRACT_VERSION,
    )
