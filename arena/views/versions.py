"""Which versions of each bot a leaderboard shows, and under which label.

By default only the latest version of each bot (the one last fielded as its bot file's current
version); ``--all-versions`` shows all. A bot with several versions shows its first one as
``name@1`` (it is stored under the plain name, see ``store/versions.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.store.versions import BotVersion


@dataclass(frozen=True)
class VersionView:
    hidden: frozenset[str] = frozenset()  # stored names left out
    labels: dict[str, str] = field(default_factory=dict)  # stored name → label shown

    def show(self, stored: str) -> bool:
        return stored not in self.hidden

    def label(self, stored: str) -> str:
        return self.labels.get(stored, stored)


def version_view(
    versions: list[BotVersion], all_versions: bool = False, rated: set[str] | None = None
) -> VersionView:
    """``rated``: the stored names with a rating; the latest version of a bot is the latest of
    those (a version fielded by a run stopped before its first game was stored has none: showing
    it instead would leave the bot off the leaderboard)."""
    by_bot: dict[str, list[BotVersion]] = {}
    for version in versions:
        by_bot.setdefault(version.name, []).append(version)
    hidden: set[str] = set()
    labels: dict[str, str] = {}
    for name, known in by_bot.items():
        if len(known) < 2:
            continue
        labels[name] = f"{name}@1"
        candidates = [v for v in known if rated is None or v.stored_name in rated] or known
        latest = max(candidates, key=lambda v: (v.last_seen, v.version))
        if not all_versions:
            hidden.update(v.stored_name for v in known if v is not latest)
    return VersionView(frozenset(hidden), labels)
