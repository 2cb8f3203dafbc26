"""What a configuration key is: its kind, its bounds, who may set it, and how a value is checked.

The table of keys itself, and the trust rules that read `Trust`, are `wherein.config`'s.
"""

from __future__ import annotations

import enum
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wherein.errors import ConfigError
from wherein.untrusted import echo

__all__ = [
    "MAX_TIMEOUT_S",
    "MIN_TIMEOUT_S",
    "KeySpec",
    "Trust",
    "coerce_value",
    "focus_marker_problem",
    "display_value",
    "parse_text",
]

# Timeouts outside this range are clamped with a warning, never propagated: a NaN
# deadline would otherwise read as "the model had nothing to say".
MIN_TIMEOUT_S = 0.1
MAX_TIMEOUT_S = 600.0


class Trust(enum.Enum):
    """What a workspace file or the agent may do with a key; the user may always set it."""

    ANY = "any"  # a ranking or display choice
    LOWER = "lower"  # a cap or a wait: may be lowered below the user's value, never raised
    TURN_OFF = "turn_off"  # a stage that sends text to a model: may be turned off, never on
    IN_PROCESS = "in_process"  # the provider: only one that keeps code in this process
    INSIDE = "inside"  # folders: only inside the workspace
    NAMES = "names"  # package names: a workspace file's resolve only inside it; agent: none
    USER = "user"  # where code or keys go: the user's file or environment only
    USER_FILE = "user_file"  # the user's own file only, not even the environment


@dataclass(frozen=True)
class KeySpec:
    """One configuration key: its default, how to parse it, and who may set it (and why)."""

    default: Any
    kind: str  # "int" | "float" | "bool" | "str" | "list" | "optional_str" | "timeout"
    minimum: float | None = None
    maximum: float | None = None
    choices: Callable[[], list[str]] | None = None
    secret: bool = False
    trust: Trust = Trust.ANY
    why: str = ""  # the reason `trust` is not ANY, for the warning that names it
    # What is wrong with a value of the right kind, or None: checked where the value is
    # read (so a workspace file's is a warning and the key unused) or set, never at use.
    # `shown` quotes a value in the sentence (`untrusted.echo`, or `echo_value` for a value a
    # repository's file wrote).
    check: Callable[[Any, Callable[[Any], str]], str | None] | None = None


# Each marker costs a search of the index's file table (`wherein status` lists the folders
# they mark): a cloned `.wherein.toml` of 100,000 names held status for 81 s.
MAX_FOCUS_MARKERS = 64


def focus_marker_problem(markers: list[str], shown: Callable[[Any], str] = echo) -> str | None:
    """What makes `scope.focus_markers` unusable, or None: checked where the setting is read
    or set (`KeySpec.check`), so a bad value is refused there, or for a workspace file's,
    warned about and left unused; never an error of every later command."""
    names = [m.strip() for m in markers if m.strip()]
    if len(names) > MAX_FOCUS_MARKERS:
        return f"{len(names):,} names are more than the {MAX_FOCUS_MARKERS} it takes"
    for name in names:
        if "/" in name or os.sep in name or "\0" in name or name in (".", ".."):
            return (
                f"{shown(name)} is not a file name (a path would mark every folder): list "
                "bare names such as CONTROLLER.md"
            )
        if name.startswith(("[", '"', "'")):
            return (
                f"{shown(name)} is quoted: write bare names separated by commas, such as "
                "CONTROLLER.md,AGENTS.md"
            )
    return None


def parse_text(spec: KeySpec, text: str) -> Any:
    """Turn a command-line or environment string into the key's kind of value."""
    if spec.kind == "list":
        return [part.strip() for part in text.split(",") if part.strip()]
    if spec.kind == "bool":
        lowered = text.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        return text
    if spec.kind in ("int", "float", "timeout"):
        try:
            return int(text) if spec.kind == "int" else float(text)
        except ValueError:
            return text
    if spec.kind == "optional_str" and text.strip() == "":
        return None
    return text


def coerce_value(
    key: str, spec: KeySpec, value: Any, where: str, shown: Callable[[Any], str] = echo
) -> tuple[Any, str | None]:
    """Check `value` against `spec`; return the value to use and an optional warning.

    `where` names the file or "the environment"; "" for a value given on its own (`config
    set`, recall's `configure`), which the message then does not place. `shown` quotes the
    value in a refusal (`untrusted.echo_value` for a repository's file)."""
    kind = spec.kind
    where = f" in {where}" if where else ""
    bad = f"Bad value {'(hidden)' if spec.secret else shown(value)} for '{key}'{where}"
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{bad}: expected true or false.")
        return value, None
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{bad}: expected a whole number.")
        _check_range(value, spec, bad)
        return value, None
    if kind in ("float", "timeout"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{bad}: expected a number.")
        value = float(value)
        if kind == "timeout":
            return _clamp_timeout(key, spec, value, where)
        if not math.isfinite(value):
            raise ConfigError(f"{bad}: expected a finite number.")
        _check_range(value, spec, bad)
        return value, None
    if kind == "list":
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{bad}: expected a list of strings.")
        _check(spec, value, bad, shown)
        return list(value), None
    if kind == "optional_str" and value is None:
        return None, None
    if not isinstance(value, str):
        raise ConfigError(f"{bad}: expected a string.")
    if spec.secret and any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in value):
        # httpx would refuse it as a header and quote it back in the error it raises.
        raise ConfigError(
            f"The value of '{key}'{where} contains a line break or another control "
            "character; no server accepts that in a header. Set it again without them."
        )
    if spec.choices is not None:
        choices = spec.choices()
        if value not in choices:
            raise ConfigError(f"{bad}: choose from {', '.join(choices)}.")
    return value, None


def _check(spec: KeySpec, value: Any, bad: str, shown: Callable[[Any], str]) -> None:
    problem = spec.check(value, shown) if spec.check is not None else None
    if problem:
        raise ConfigError(f"{bad}: {problem}.")


def _check_range(value: float, spec: KeySpec, bad: str) -> None:
    if spec.minimum is not None and value < spec.minimum:
        raise ConfigError(f"{bad}: must be at least {_number(spec.minimum)}.")
    if spec.maximum is not None and value > spec.maximum:
        raise ConfigError(f"{bad}: must be at most {_number(spec.maximum)}.")


def _number(value: float) -> str:
    """A bound as a person writes it: 1,099,511,627,776, not 1.09951e+12."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _clamp_timeout(key: str, spec: KeySpec, value: float, where: str) -> tuple[float, str | None]:
    if math.isnan(value) or value < MIN_TIMEOUT_S:
        clamped = MIN_TIMEOUT_S if not math.isnan(value) else spec.default
    elif value > MAX_TIMEOUT_S:
        clamped = MAX_TIMEOUT_S
    else:
        return value, None
    return clamped, (
        f"Timeout {value!r} for '{key}'{where} is out of range; using {clamped:g} s "
        f"(allowed {MIN_TIMEOUT_S:g} to {MAX_TIMEOUT_S:g})."
    )


def display_value(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if value < 1e15 else str(value)
    return str(value)
