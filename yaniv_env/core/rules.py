"""The rules base class every game's frozen rules dataclass builds on."""

from __future__ import annotations

import ast
import dataclasses
import functools
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal, NoReturn, TypeVar

_R = TypeVar("_R", bound="RulesBase")


class RulesBase:
    """What the rules dataclasses of every game (:class:`yaniv_env.Rules`,
    :class:`yaniv_env.pis_yedili.Rules`) share: copies with changes, the description of
    what differs from a preset, the validation helpers and the preset lookup. A subclass
    is a frozen dataclass with ``name`` and ``num_players`` fields, and a ``_validate``
    method for its ranges and combinations.

    Every field's value is checked against the field's annotation first (:meth:`_check_types`,
    one checker for every field of every game): ``bool`` fields take only ``True`` or
    ``False`` (not ``1``, ``"no"``, ``np.True_``); ``int`` fields only Python ints (not
    bools, floats such as ``2.0``, NumPy integers); ``str`` fields only strings;
    ``Literal`` choices only one of their strings; ``X | None`` also ``None``; tuples only
    tuples of the annotated items. A wrong type raises ``ValueError`` (as every invalid
    option does, not ``TypeError``) naming the field, the value and what is expected."""

    def __post_init__(self) -> None:
        self._check_types()
        self._validate()

    def _validate(self) -> None:
        """The subclass's checks of ranges and combinations (the types are checked before)."""

    #: How :meth:`lookup`'s errors name a preset and a rules object of this game.
    _preset_kind = "rules preset"
    _object_kind = "rules object"

    def replace(self: _R, **changes) -> _R:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain JSON data (tuples become lists): what records, reports and
        checkpoints store; :meth:`from_dict` reads it back."""
        import json  # here: importing the rules leaves json to the code that uses it

        return json.loads(json.dumps(dataclasses.asdict(self)))

    @classmethod
    def from_dict(
        cls: type[_R], d: Mapping[str, Any], what: str = "the rules", limits: Mapping[str, int] | None = None,
        title: str = "the game's",
    ) -> _R:  # fmt: skip
        """Rules from :meth:`to_dict` output read back from JSON (lists back to tuples);
        ``ValueError`` (naming ``what``: the file and where in it) for anything but a dict of
        this class's options, and for a number above ``limits`` (option -> largest value),
        checked before the rules (and so any table) are built."""
        from .limits import check_rule_values

        if not isinstance(d, Mapping):
            raise ValueError(f"{what}: expected a dict of {title} rules options, got {type(d).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(map(str, set(d) - known))
        if unknown:
            raise ValueError(f"{what}: unknown rules fields {unknown} (this version's {title} rules: {sorted(known)})")
        check_rule_values(d, limits or {}, what, title)

        def tup(v):
            return tuple(tup(x) for x in v) if isinstance(v, list) else v

        return cls(**{k: tup(v) for k, v in d.items()})

    def with_players(self: _R, num_players: int) -> _R:
        return self.replace(num_players=num_players)

    def with_options(self: _R, assignments: Iterable[str]) -> _R:
        """A copy with options set from ``option=value`` strings (``yaniv train --set``).

        A value is a Python literal (``7``, ``True``, ``None``, ``((50, 0), (100, 50))``)
        or a bare word (``asaf``); ``true``, ``false`` and ``none`` may be lower case. An
        unknown option, ``name`` and ``num_players`` (set by the preset and the player
        count), a value of the wrong type or one the rules refuse raise ``ValueError``
        naming the option."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, object] = {}
        for assignment in assignments:
            option, sep, text = (part.strip() for part in assignment.partition("="))
            if not sep or not option:
                raise ValueError(f"rule option {assignment!r}: expected option=value")
            if option in ("name", "num_players"):
                raise ValueError(f"rule option {option!r} cannot be set this way (use the preset and the player count)")
            if option not in fields:
                settable = ", ".join(sorted(set(fields) - {"name", "num_players"}))
                raise ValueError(f"unknown rule option {option!r}; options: {settable}")
            changes[option] = self._option_value(option, str(fields[option].type), text)
        return self.replace(**changes) if changes else self

    def _option_value(self, option: str, annotation: str, text: str) -> object:
        """``text`` read as a value of ``option`` (whose type is written ``annotation``)."""
        words = {"true": True, "false": False, "none": None}
        try:
            value = words[text.lower()] if text.lower() in words else ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text  # a bare word: a choice such as ``asaf``
        current = getattr(self, option)
        if value is None and "None" in annotation:
            return None
        expected = type(current) if current is not None else int
        if isinstance(value, list):
            value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        if type(value) is not expected and not (expected is float and type(value) is int):
            raise ValueError(f"rule option {option!r}: {text!r} is not of type {expected.__name__} ({annotation})")
        return value

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
        if num_players is not None and (type(num_players) is not int or num_players != rules.num_players):
            rules = rules.with_players(num_players)  # checks the count (2.0 equals 2 but is refused)
        return rules

    # -- validation helpers: each raises ValueError("Rules.<option>: <reason>") -----------
    @staticmethod
    def _bad(option: str, reason: str) -> NoReturn:
        raise ValueError(f"Rules.{option}: {reason}")

    def _check_types(self) -> None:
        """Every field's value against its annotation (see the class docstring)."""
        for option, annotation in _field_types(type(self)):
            value = getattr(self, option)
            if not _conforms(value, annotation):
                self._bad(option, f"expected {_expected(annotation)}, got {value!r}")

    def _check_at_least(self, low: int, options: Iterable[str]) -> None:
        for option in options:
            if getattr(self, option) < low:
                self._bad(option, f"must be ≥ {low}, got {getattr(self, option)}")


@functools.cache
def _field_types(cls: type) -> tuple[tuple[str, object], ...]:
    """``(name, annotation)`` of each field of the rules dataclass ``cls``, resolved."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def _is_union(annotation: object) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _conforms(value: object, annotation: object) -> bool:
    """Whether ``value`` is of the type ``annotation`` says (bool, int, str, None, unions,
    ``Literal`` choices, tuples); exact: a bool is no int, a NumPy scalar no Python one."""
    if annotation in (bool, int, str):
        return type(value) is annotation
    if annotation is type(None):
        return value is None
    if _is_union(annotation):
        return any(_conforms(value, a) for a in typing.get_args(annotation))
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return any(type(value) is type(choice) and value == choice for choice in args)
    if origin is tuple:
        if type(value) is not tuple:
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(v, args[0]) for v in value)
        return len(value) == len(args) and all(_conforms(v, a) for v, a in zip(value, args, strict=True))
    raise TypeError(f"no check for the rules field type {annotation!r}")  # a field type added without one


def _expected(annotation: object) -> str:
    """``annotation`` in words, for the error message."""
    plain = {bool: "a bool (True or False)", int: "an int", str: "a str", type(None): "None"}
    if annotation in plain:
        return plain[annotation]
    if _is_union(annotation):
        return " or ".join(_expected(a) for a in typing.get_args(annotation))
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if len(args) == 2 and args[1] is Ellipsis:
        return f"a tuple whose items are each {_expected(args[0])}"
    return f"a tuple ({', '.join(_expected(a) for a in args)})"


__all__ = ["RulesBase"]
