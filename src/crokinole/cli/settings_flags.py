"""The options of ``crokinole serve``, built from the settings' fields.

Each field of :class:`~crokinole.server.settings.ServerSettings` and
:class:`~crokinole.server.settings.ProcessSettings` that has an
:class:`~crokinole.server.settings.Option` becomes one argparse option: its
help and its default come from the field (or, when the flag is not given,
from the environment variables it names), its parser from the option's
:class:`~crokinole.server.settings.Kind`.  :func:`settings_from` turns the
parsed options back into settings.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from crokinole.cli.arguments import (
    count_argument,
    database_argument,
    lease_argument,
    positive_number,
    redis_argument,
    redis_prefix_argument,
)
from crokinole.server.settings import Kind, Option, help_of, option_of

_S = TypeVar("_S")

Field = dataclasses.Field[Any]

#: The parser of each kind of text (None: the text itself, or a choice).
PARSERS: dict[Kind, Callable[[str], Any]] = {
    Kind.COUNT: count_argument(1),
    Kind.SECONDS: positive_number,
    Kind.DATABASE: database_argument,
    Kind.REDIS: redis_argument,
    Kind.REDIS_PREFIX: redis_prefix_argument,
    Kind.LEASE: lease_argument,
}

#: Kinds given by the flag alone, without a value.
SWITCHES = (Kind.SWITCH, Kind.SWITCH_OFF)


def options(settings: type[Any], *, grouped: bool | None = None) -> list[Field]:
    """The fields of a settings class that are options (only those in a section, or not, if told).

    >>> from crokinole.server.settings import ProcessSettings
    >>> [f.name for f in options(ProcessSettings, grouped=True)]
    ['ranked_rounds']
    """
    found = []
    for field in dataclasses.fields(settings):
        option = option_of(field)
        if option is not None and grouped in (None, option.group is not None):
            found.append(field)
    return found


def dest(option: Option) -> str:
    """The attribute of the parsed namespace that holds the option (as argparse names it)."""
    return option.flag.lstrip("-").replace("-", "_")


def environment(option: Option) -> str:
    """The value of the first of the option's environment variables that is set, or ''."""
    for name in option.env:
        text = os.environ.get(name, "").strip()
        if text:
            return text
    return ""


def flag_default(field: Field, option: Option) -> Any:
    """The option's default: the environment's text, else the field's default as text.

    A text default goes through the option's parser, so a bad environment
    value gets the same plain error as a bad option.
    """
    text = environment(option)
    value: Any = field.default
    if option.kind is Kind.ORIGINS:
        return [o.strip() for o in text.split(",") if o.strip()] if text else list(value)
    if text:
        return text
    if value is None or option.kind in SWITCHES:
        return None
    if option.unit != 1:
        value = value / option.unit
    return f"{value:g}" if isinstance(value, float) else value


def flag_help(field: Field, option: Option) -> str:
    """The option's ``--help`` text: the field's help and what the default is."""
    about = option.help or help_of(field)
    if option.kind in SWITCHES:
        return about
    shown = option.default_text
    if shown is None:
        shown = "%(default)s" + "".join(f", or ${name}" for name in option.env[:1])
    return f"{about} (default: {shown})" if shown else about


def add_option(parser: argparse._ActionsContainer, field: Field) -> None:
    """Add the option of one settings field to ``parser`` (or to a section of it)."""
    option = option_of(field)
    assert option is not None  # only fields that are options are added
    about = flag_help(field, option)
    if option.kind in SWITCHES:
        parser.add_argument(option.flag, action="store_true", help=about)
        return
    extra: dict[str, Any] = {}
    if option.kind is Kind.ORIGINS:
        extra["action"] = "append"
    if option.kind is Kind.CHOICE:
        extra["choices"] = option.choices
        if not isinstance(option.choices[0], str):
            extra["type"] = type(option.choices[0])
    elif option.kind in PARSERS:
        extra["type"] = PARSERS[option.kind]
    if option.metavar is not None:
        extra["metavar"] = option.metavar
    parser.add_argument(option.flag, default=flag_default(field, option), help=about, **extra)


def add_options(
    parser: argparse.ArgumentParser, fields: Iterable[Field], sections: dict[str, str]
) -> None:
    """Add the options of ``fields`` in order; a field with a group goes to that section."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    for field in fields:
        option = option_of(field)
        assert option is not None
        target: argparse._ActionsContainer = parser
        if option.group is not None:
            if option.group not in groups:
                groups[option.group] = parser.add_argument_group(
                    option.group, sections.get(option.group)
                )
            target = groups[option.group]
        add_option(target, field)


def settings_from(settings: type[_S], args: argparse.Namespace, **given: Any) -> _S:
    """The settings that the parsed options ``args`` say, with ``given`` fields as told.

    >>> from crokinole.server.settings import ServerSettings
    >>> args = argparse.Namespace(lease_seconds=2.5, no_warm_up=True, allowed_origin=["*"])
    >>> s = settings_from(ServerSettings, args, rooms_per_minute=5)
    >>> s.lease_ms, s.warm_up, s.allowed_origins, s.rooms_per_minute, s.cpu_workers
    (2500, False, ('*',), 5, 2)
    """
    values = dict(given)
    for field in options(settings):
        option = option_of(field)
        assert option is not None
        if field.name in values or not hasattr(args, dest(option)):
            continue
        value = getattr(args, dest(option))
        if option.kind is Kind.SWITCH_OFF:
            value = not value
        elif option.kind is Kind.ORIGINS:
            value = tuple(value)
        elif option.unit != 1:
            value = round(value * option.unit)
        values[field.name] = value
    return settings(**values)
