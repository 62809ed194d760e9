"""Bot versions: a bot is its name plus a fingerprint of its source and settings.

``apply_versions`` gives each loaded bot the stored name of its version (``store/versions.py``:
plain for version 1, ``name@N`` after), so that a changed bot file starts a new version with a
fresh rating and the old one keeps its games. The first time a database sees a bot, what it
holds of that name already (a database from before versions) is version 1, and so is the bot as
loaded now. ``field_old_versions`` loads an old version of a one-file bot from the source stored
with it (``--bots mybot@1,mybot``, or a resumed run that played it), written to a folder beside
the database and loaded like any bot file, in the same isolation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.execution.process.sandboxed_loading import setting_text
from arena.limits import PlanError
from arena.plugins.loading import BotSpec, Registry
from arena.store.database import Store
from arena.store.versions import BotVersion, stored_name


@dataclass(frozen=True)
class Identity:
    fingerprint: str
    origin: str  # "file", "entry-point", "manifest" or ""
    source: str | None  # the text of a one-file bot


@dataclass
class Versions:
    """The versions of a database, and those of the loaded bots to record once they play."""

    stored: dict[str, list[BotVersion]]
    pending: dict[str, tuple[str, int, str, str, str | None]] = field(default_factory=dict)

    def record(self, store: Store, played: Iterable[str]) -> None:
        """Record the current versions of the bots ``played`` (stored names)."""
        fielded = [self.pending[n] for n in dict.fromkeys(played) if n in self.pending]
        store.record_bot_versions(fielded)


def identify(spec: BotSpec) -> Identity:
    """The fingerprint of a bot: its source file (one file) or its entry point and package
    version, its registered name and its settings."""
    kind, where = spec.origin or ("", "")
    facts: dict = {"name": spec.plugin_name}
    facts["settings"] = [[key, setting_text(value)] for key, value in spec.settings]
    source = None
    if kind == "file" and Path(where).is_dir():  # a bot package: every file of its folder
        facts["package"] = _folder_digest(Path(where))
    elif kind == "file":
        data = Path(where).read_bytes()
        facts["file"] = hashlib.sha256(data).hexdigest()
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError:
            source = None
    elif kind == "entry-point":
        facts["entry_point"] = [where, *_distribution(where)]
    elif kind == "manifest":  # a program: its manifest and every source file it names
        facts["manifest"] = spec.cls.manifest.digest()
    else:  # a bundled bot, or one registered by code: its class, and the file defining it
        facts["class"] = f"{spec.cls.__module__}.{spec.cls.__qualname__}"
        defined_in = _source_file(spec.cls)
        if defined_in is not None:
            facts["file"] = hashlib.sha256(defined_in.read_bytes()).hexdigest()
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()
    return Identity(digest[:16], kind, source)


def _folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _source_file(cls) -> Path | None:
    import inspect

    try:
        path = inspect.getsourcefile(cls)
    except (TypeError, OSError):
        return None
    return Path(path) if path and Path(path).is_file() else None


def _distribution(entry_point: str) -> list[str]:
    import importlib.metadata

    for ep in importlib.metadata.entry_points(group="arena"):
        if ep.name == entry_point:
            dist = getattr(ep, "dist", None)
            return [ep.value, dist.name if dist else "", dist.version if dist else ""]
    return []


def apply_versions(registry: Registry, store: Store) -> Versions:
    """Rename every loaded bot to the stored name of its version; ``registry.bot(name)`` then
    finds the current version by its plain name or by ``name@N``."""
    stored: dict[str, list[BotVersion]] = {}
    for version in store.bot_versions():
        stored.setdefault(version.name, []).append(version)
    versions = Versions(stored)
    renamed: dict[str, BotSpec] = {}
    for name, spec in registry.bots.items():
        identity = identify(spec)
        known = stored.get(name, [])
        matches = [v.version for v in known if v.fingerprint == identity.fingerprint]
        number = matches[0] if matches else max((v.version for v in known), default=0) + 1
        new_name = stored_name(name, number)
        renamed[new_name] = replace(spec, name=new_name, registered_as=name)
        registry.bot_aliases[name] = registry.bot_aliases[f"{name}@{number}"] = new_name
        source = identity.source if identity.origin == "file" else None
        versions.pending[new_name] = (name, number, identity.fingerprint, identity.origin, source)
    registry.bots = renamed
    return versions


def parse_version(name: str) -> tuple[str, int] | None:
    """(bot, version) of ``name@N``; None for any other name."""
    base, at, number = name.rpartition("@")
    if not at or not base or not number.isdigit():
        return None
    return base, int(number)


def field_old_versions(
    registry: Registry,
    store: Store,
    versions: Versions,
    names: Iterable[str],
    isolated: bool,
    memory_mib: int = 1024,
    stored_names: bool = False,
) -> None:
    """Load the old versions among ``names`` (as a user names them, ``name@N``; or, with
    ``stored_names``, as a stored run names them) from their stored source. Raises ``PlanError``
    for a version that does not exist or cannot be loaded again."""
    for name in names:
        if name in registry.bots or (not stored_names and name in registry.bot_aliases):
            continue
        wanted = parse_version(name)
        if wanted is None and stored_names and name in versions.stored:
            wanted = (name, 1)  # version 1 is stored under the plain name
        if wanted is None:
            continue  # an unknown bot: building the tournament says so
        version = _stored_version(versions, *wanted)
        _load_old(registry, store, version, isolated, memory_mib)


def _stored_version(versions: Versions, name: str, number: int) -> BotVersion:
    known = versions.stored.get(name, [])
    for version in known:
        if version.version == number:
            if not version.has_source:
                kind = "an entry point" if version.origin == "entry-point" else "not one file"
                raise PlanError(
                    f"{name}@{number}: an old version of a bot that is {kind} cannot be fielded "
                    f"again (its source is not stored); only its current version can play"
                )
            return version
    have = ", ".join(f"{name}@{v.version}" for v in known) or "none stored"
    raise PlanError(f"unknown version {name}@{number} (versions of {name}: {have})")


def _load_old(
    registry: Registry, store: Store, version: BotVersion, isolated: bool, memory_mib: int
) -> None:
    """Write the stored source to ``<db>-versions/<name>@<N>/`` and load it from there."""
    label = f"{version.name}@{version.version}"
    folder = store.path.parent / f"{store.path.stem}-versions" / label
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_file_stem(version.name)}.py"
    source = store.bot_source(version.name, version.version).encode("utf-8")
    if not path.exists() or path.read_bytes() != source:
        path.write_bytes(source)
    loaded = _load_folder(folder, isolated, memory_mib)
    spec = loaded.bots.get(version.name)
    if spec is None:
        problems = "; ".join(e.message for e in loaded.errors) or f"it registers no {version.name}"
        raise PlanError(f"{label}: its stored source does not load ({problems})")
    if identify(spec).fingerprint != version.fingerprint:
        raise PlanError(f"{label}: its stored source no longer gives the same bot (an import?)")
    stored = version.stored_name
    registry.bots[stored] = replace(
        spec, name=stored, registered_as=version.name, source=f"{label} (stored, {path})"
    )
    registry.bot_aliases[label] = stored


def _file_stem(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name) or "bot"


def _load_folder(folder: Path, isolated: bool, memory_mib: int) -> Registry:
    if isolated:
        from arena.execution.process.sandboxed_loading import load_registry_isolated

        return load_registry_isolated([folder], entry_points=False, memory_mib=memory_mib)
    from arena.plugins.loading import load_registry

    return load_registry([folder], entry_points=False)
