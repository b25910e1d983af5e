"""The rules base class every game's frozen rules dataclass builds on."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import NoReturn, TypeVar

_R = TypeVar("_R", bound="RulesBase")


class RulesBase:
    """What the rules dataclasses of every game (:class:`yaniv_env.Rules`,
    :class:`yaniv_env.pis_yedili.Rules`) share: copies with changes, the description of
    what differs from a preset, the validation helpers and the preset lookup. A subclass
    is a frozen dataclass with ``name`` and ``num_players`` fields."""

    #: How :meth:`lookup`'s errors name a preset and a rules object of this game.
    _preset_kind = "rules preset"
    _object_kind = "rules object"

    def replace(self: _R, **changes) -> _R:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)

    def with_players(self: _R, num_players: int) -> _R:
        return self.replace(num_players=num_players)

    def _describe(self, head: str, base: RulesBase) -> str:
        """``head``, then the options that differ from ``base``, one per line."""
        lines = [head]
        for f in dataclasses.fields(self):
            if f.name not in ("name", "num_players") and getattr(self, f.name) != getattr(base, f.name):
                lines.append(f"  {f.name} = {getattr(self, f.name)!r}")
        return "\n".join(lines)

    @classmethod
    def lookup(cls: type[_R], rules: str | _R, num_players: int | None, presets: Mapping[str, _R]) -> _R:
        """A preset by name (or a rules object of this class), optionally with another
        player count."""
        if isinstance(rules, str):
            if rules not in presets:
                raise ValueError(f"unknown {cls._preset_kind} {rules!r}; presets: {', '.join(presets)}")
            rules = presets[rules]
        elif not isinstance(rules, cls):
            got = f"a {rules._object_kind}" if isinstance(rules, RulesBase) else type(rules).__name__
            raise ValueError(f"rules must be a preset name or a {cls._object_kind}, got {got}")
        if num_players is not None and num_players != rules.num_players:
            rules = rules.with_players(num_players)
        return rules

    # -- validation helpers: each raises ValueError("Rules.<option>: <reason>") -----------
    @staticmethod
    def _bad(option: str, reason: str) -> NoReturn:
        raise ValueError(f"Rules.{option}: {reason}")

    def _check_choices(self, choices: Mapping[str, tuple[str, ...]]) -> None:
        for option, allowed in choices.items():
            if getattr(self, option) not in allowed:
                self._bad(option, f"{getattr(self, option)!r} is not one of {', '.join(allowed)}")

    def _check_ints(self, options: Iterable[str]) -> None:
        for option in options:
            value = getattr(self, option)
            if not isinstance(value, int) or isinstance(value, bool):
                self._bad(option, f"must be an int, got {value!r}")

    def _check_at_least(self, low: int, options: Iterable[str]) -> None:
        for option in options:
            if getattr(self, option) < low:
                self._bad(option, f"must be ≥ {low}, got {getattr(self, option)}")


__all__ = ["RulesBase"]
