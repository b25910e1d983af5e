"""The summary of an engine check on one preset and player count (:mod:`yaniv_env.tools.verify`)."""

from __future__ import annotations

from dataclasses import dataclass

#: What a check counts (added up over the parts of a configuration run in several processes).
COUNTS = ("games", "decisions", "rounds")
#: The counters every check's summary carries, added up over the configurations.
TOTALS = (*COUNTS, "seconds")


@dataclass
class ConfigSummary:
    """What a check did on one configuration (``players`` 0: the total over several)."""

    rules: str
    players: int
    games: int = 0
    decisions: int = 0
    rounds: int = 0
    seconds: float = 0.0

    def add(self, other: ConfigSummary, counters: tuple[str, ...] = TOTALS) -> None:
        """Add ``other``'s ``counters`` to this summary's."""
        for attr in counters:
            setattr(self, attr, getattr(self, attr) + getattr(other, attr))

    @property
    def label(self) -> str:
        return f"{self.rules} {self.players}p" if self.players else self.rules
