"""Settings: defaults < user file < workspace file < environment, validated key by key.

The user file is `$XDG_CONFIG_HOME/wherein/config.toml`; the workspace file is
`.wherein.toml` at the workspace root; environment variables are
`WHEREIN_<SECTION>_<KEY>`. Some keys may only come from the user's own file
(`embedding.allow_remote`): a repository or an environment must not be able to
send source code off the machine.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wherein.errors import ConfigError

if TYPE_CHECKING:
    import tomlkit

__all__ = [
    "KEYS",
    "Settings",
    "config_get",
    "config_set",
    "load_settings",
    "user_config_path",
    "workspace_config_path",
]

WORKSPACE_FILE_NAME = ".wherein.toml"
SOURCE_DEFAULT = "default"
SOURCE_USER = "user"
SOURCE_WORKSPACE = "workspace"
SOURCE_ENV = "env"

# Every `*.api_base` is a place source text is sent: the endpoint guard checks it on the way in.
GUARDED_URL_SUFFIX = ".api_base"

# Timeouts outside this range are clamped with a warning, never propagated: a NaN
# deadline would otherwise read as "the model had nothing to say".
MIN_TIMEOUT_S = 0.1
MAX_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class KeySpec:
    """One configuration key: its default, how to parse it, and who may set it."""

    default: Any
    kind: str  # "int" | "float" | "bool" | "str" | "list" | "optional_str" | "timeout"
    minimum: float | None = None
    maximum: float | None = None
    choices: Callable[[], list[str]] | None = None
    secret: bool = False
    user_file_only: bool = False


def _providers() -> list[str]:
    from wherein.embedding.registry import REGISTRY

    return sorted(REGISTRY)


KEYS: dict[str, KeySpec] = {
    "embedding.provider": KeySpec("minilm", "str", choices=_providers),
    "embedding.api_base": KeySpec("http://127.0.0.1:11434", "str"),
    "embedding.model": KeySpec(None, "optional_str"),
    "embedding.api_key": KeySpec(None, "optional_str", secret=True),
    "embedding.allow_remote": KeySpec(False, "bool", user_file_only=True),
    "embedding.batch_size": KeySpec(16, "int", minimum=1, maximum=1024),
    "embedding.concurrency": KeySpec(2, "int", minimum=1, maximum=64),
    "embedding.keep_alive": KeySpec("5m", "str"),
    "embedding.timeout_s": KeySpec(30.0, "timeout"),
    "search.limit": KeySpec(8, "int", minimum=1, maximum=200),
    "search.excerpt_lines": KeySpec(40, "int", minimum=1, maximum=2000),
    "search.cold_budget_s": KeySpec(30.0, "float", minimum=0.0, maximum=86400.0),
    "scope.focus": KeySpec(None, "optional_str"),
    "scope.focus_markers": KeySpec([], "list"),
    "scope.source_roots": KeySpec([], "list"),
    "walk.max_file_bytes": KeySpec(1_048_576, "int", minimum=1, maximum=1 << 40),
    "expansion.enabled": KeySpec(False, "bool"),
    "expansion.model": KeySpec(None, "optional_str"),
    "expansion.api_base": KeySpec(None, "optional_str"),
    "expansion.timeout_s": KeySpec(5.0, "timeout"),
    "rerank.enabled": KeySpec(False, "bool"),
    "rerank.model": KeySpec(None, "optional_str"),
    "rerank.api_base": KeySpec(None, "optional_str"),
    "rerank.timeout_s": KeySpec(5.0, "timeout"),
    "rerank.candidates": KeySpec(20, "int", minimum=1, maximum=200),
}


@dataclass(frozen=True)
class Settings:
    """The effective configuration for one workspace, with where each value came from."""

    values: Mapping[str, Any]
    sources: Mapping[str, str]
    warnings: tuple[str, ...] = field(default=())

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def section(self, name: str) -> dict[str, Any]:
        """The keys of one section, without the section prefix."""
        prefix = name + "."
        return {k[len(prefix) :]: v for k, v in self.values.items() if k.startswith(prefix)}


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/wherein/config.toml`, defaulting to `~/.config`."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "wherein" / "config.toml"


def workspace_config_path(workspace: Path) -> Path:
    return workspace / WORKSPACE_FILE_NAME


def load_settings(
    workspace: Path | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Merge defaults, the user file, the workspace file and the environment.

    Raises:
        ConfigError: a file does not parse, or a key is unknown or has a bad value.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {key: spec.default for key, spec in KEYS.items()}
    sources: dict[str, str] = dict.fromkeys(KEYS, SOURCE_DEFAULT)
    warnings: list[str] = []

    layers: list[tuple[str, Path | None, dict[str, Any]]] = []
    user_path = user_config_path(env)
    layers.append((SOURCE_USER, user_path, _flatten(_read_toml(user_path), user_path)))
    if workspace is not None:
        ws_path = workspace_config_path(workspace)
        layers.append((SOURCE_WORKSPACE, ws_path, _flatten(_read_toml(ws_path), ws_path)))
    layers.append((SOURCE_ENV, None, _environment_values(env)))

    for source, path, raw in layers:
        where = str(path) if path else "the environment"
        for key, value in raw.items():
            spec = KEYS.get(key)
            if spec is None:
                raise ConfigError(
                    f"Unknown setting '{key}' in {where}. Known keys: {', '.join(sorted(KEYS))}."
                )
            if spec.user_file_only and source != SOURCE_USER:
                warnings.append(
                    f"Ignored '{key}' from {where}: it is honoured only from your own "
                    f"config file ({user_path})."
                )
                continue
            values[key], warning = _coerce(key, spec, value, where)
            sources[key] = source
            if warning:
                warnings.append(warning)
    return Settings(values=values, sources=sources, warnings=tuple(warnings))


def config_get(key: str, workspace: Path | None = None) -> tuple[str, str]:
    """The effective value of `key` as display text, and where it came from."""
    spec = _spec(key)
    settings = load_settings(workspace)
    value = settings[key]
    if spec.secret:
        shown = "(set)" if value else "(unset)"
    else:
        shown = _display(value)
    return shown, settings.sources[key]


def config_set(key: str, raw_value: str, path: Path) -> None:
    """Validate `raw_value` for `key` and write it into the TOML file at `path`.

    The file keeps its comments and other keys; it is replaced atomically. An endpoint URL the
    guard refuses (`wherein.embedding.guard.check_url`) is a ConfigError and is not written.
    """
    import tomlkit

    spec = _spec(key)
    value, _ = _coerce(key, spec, _parse_text(spec, raw_value), f"the value for '{key}'")
    if key.endswith(GUARDED_URL_SUFFIX) and value is not None:
        from wherein.embedding.guard import check_url

        check_url(value, allow_remote=load_settings()["embedding.allow_remote"], key=key)
    document = _read_document(path)
    section_name, name = key.split(".", 1)
    section = document.get(section_name)
    if section is None:
        section = tomlkit.table()
        document[section_name] = section
    section[name] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(tomlkit.dumps(document), encoding="utf-8")
    os.replace(tmp, path)


def _spec(key: str) -> KeySpec:
    spec = KEYS.get(key)
    if spec is None:
        raise ConfigError(f"Unknown setting '{key}'. Known keys: {', '.join(sorted(KEYS))}.")
    return spec


def _read_text(path: Path) -> str | None:
    """The file's text, None when there is no such file."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"Cannot read config file {path}: {err}. Fix or remove it.") from err


def _read_document(path: Path, text: str | None = None) -> tomlkit.TOMLDocument:
    import tomlkit
    import tomlkit.exceptions

    if text is None:
        text = _read_text(path)
    if text is None:
        return tomlkit.document()
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as err:
        raise ConfigError(
            f"Config file {path} is not valid TOML ({err}). Fix or remove it."
        ) from err


def _read_toml(path: Path) -> dict[str, Any]:
    text = _read_text(path)
    if text is None:  # the usual case, and then tomlkit (~10 ms to import) is not needed
        return {}
    return _read_document(path, text).unwrap()


def _flatten(data: dict[str, Any], path: Path) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(
                f"'{section}' in {path} must be a [section] table of keys. "
                f"Known keys: {', '.join(sorted(KEYS))}."
            )
        for name, value in table.items():
            flat[f"{section}.{name}"] = value
    return flat


def _environment_values(env: Mapping[str, str]) -> dict[str, Any]:
    wanted = {"WHEREIN_" + key.replace(".", "_").upper(): key for key in KEYS}
    found: dict[str, Any] = {}
    for name, text in env.items():
        key = wanted.get(name)
        if key is not None:
            found[key] = _parse_text(KEYS[key], text)
    return found


def _parse_text(spec: KeySpec, text: str) -> Any:
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


def _coerce(key: str, spec: KeySpec, value: Any, where: str) -> tuple[Any, str | None]:
    """Check `value` against `spec`; return the value to use and an optional warning."""
    kind = spec.kind
    bad = f"Bad value {value!r} for '{key}' in {where}"
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
            return _clamp_timeout(key, value, where)
        if not math.isfinite(value):
            raise ConfigError(f"{bad}: expected a finite number.")
        _check_range(value, spec, bad)
        return value, None
    if kind == "list":
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{bad}: expected a list of strings.")
        return list(value), None
    if kind == "optional_str" and value is None:
        return None, None
    if not isinstance(value, str):
        raise ConfigError(f"{bad}: expected a string.")
    if spec.choices is not None:
        choices = spec.choices()
        if value not in choices:
            raise ConfigError(f"{bad}: choose from {', '.join(choices)}.")
    return value, None


def _check_range(value: float, spec: KeySpec, bad: str) -> None:
    if spec.minimum is not None and value < spec.minimum:
        raise ConfigError(f"{bad}: must be at least {spec.minimum:g}.")
    if spec.maximum is not None and value > spec.maximum:
        raise ConfigError(f"{bad}: must be at most {spec.maximum:g}.")


def _clamp_timeout(key: str, value: float, where: str) -> tuple[float, str | None]:
    if math.isnan(value) or value < MIN_TIMEOUT_S:
        clamped = MIN_TIMEOUT_S if not math.isnan(value) else KEYS[key].default
    elif value > MAX_TIMEOUT_S:
        clamped = MAX_TIMEOUT_S
    else:
        return value, None
    return clamped, (
        f"Timeout {value!r} for '{key}' in {where} is out of range; using {clamped:g} s "
        f"(allowed {MIN_TIMEOUT_S:g} to {MAX_TIMEOUT_S:g})."
    )


def _display(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if value < 1e15 else str(value)
    return str(value)
