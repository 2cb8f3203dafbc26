"""Settings: defaults < user file < workspace file < environment, validated key by key.

The user file is `$XDG_CONFIG_HOME/wherein/config.toml`; the workspace file is
`.wherein.toml` at the workspace root; environment variables are
`WHEREIN_<SECTION>_<KEY>`. The workspace file arrives with a clone, so it is written by
someone else: each key's `Trust` says what such a file (and the agent, through `configure`)
may do with it. Ranking and display are theirs to choose; where code, queries and keys are
sent, whether stages that send them run, which folders outside the repository are read, and
how long anything may wait are the user's alone (SECURITY.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from wherein.config_files import (
    flatten_sections,
    read_config_document,
    read_config_text,
    read_config_toml,
)
from wherein.config_keys import (
    MAX_TIMEOUT_S,
    MIN_TIMEOUT_S,
    KeySpec,
    Trust,
    coerce_value,
    display_value,
    focus_marker_problem,
    parse_text,
)
from wherein.errors import ConfigError
from wherein.safe_files import UnsafeFile, write_atomic
from wherein.settings import Settings, user_config_path, workspace_config_path
from wherein.untrusted import capped, echo, echo_name, echo_value

__all__ = [
    "IN_PROCESS_PROVIDERS",
    "KEYS",
    "MAX_TIMEOUT_S",
    "MIN_TIMEOUT_S",
    "KeySpec",
    "Settings",
    "Trust",
    "all_inside",
    "config_get",
    "config_set",
    "load_settings",
    "untrusted_refusal",
    "user_config_path",
    "workspace_config_path",
]

SOURCE_DEFAULT = "default"
SOURCE_USER = "user"
SOURCE_WORKSPACE = "workspace"
SOURCE_ENV = "env"

# Every `*.api_base` is a place source text is sent: the endpoint guard checks it on the way in.
GUARDED_URL_SUFFIX = ".api_base"

# Providers that embed inside this process; every other provider sends chunks over HTTP.
IN_PROCESS_PROVIDERS = frozenset({"minilm", "static"})


def _providers() -> list[str]:
    from wherein.embedding.registry import REGISTRY

    return sorted(REGISTRY)


_WHERE_CODE = "it decides where code is sent"
_WAIT = "a longer wait would let a wedged endpoint stall every search"
_LOAD = "it decides how hard your model server works, not how results rank"

KEYS: dict[str, KeySpec] = {
    "embedding.provider": KeySpec(
        "minilm",
        "str",
        choices=_providers,
        trust=Trust.IN_PROCESS,
        why="a provider outside this process sends code over HTTP",
    ),
    "embedding.api_base": KeySpec(
        "http://127.0.0.1:11434", "str", trust=Trust.USER, why=_WHERE_CODE
    ),
    "embedding.model": KeySpec(None, "optional_str"),
    "embedding.api_key": KeySpec(
        None,
        "optional_str",
        secret=True,
        trust=Trust.USER,
        why="it is a secret sent with every request",
    ),
    "embedding.allow_remote": KeySpec(
        False, "bool", trust=Trust.USER_FILE, why="it decides whether code may leave this machine"
    ),
    "embedding.batch_size": KeySpec(
        16, "int", minimum=1, maximum=1024, trust=Trust.LOWER, why=_LOAD
    ),
    "embedding.concurrency": KeySpec(2, "int", minimum=1, maximum=64, trust=Trust.LOWER, why=_LOAD),
    "embedding.keep_alive": KeySpec(
        "5m",
        "str",
        trust=Trust.USER,
        why="it decides how long your model server keeps the model in memory",
    ),
    "embedding.timeout_s": KeySpec(30.0, "timeout", trust=Trust.LOWER, why=_WAIT),
    "search.limit": KeySpec(8, "int", minimum=1, maximum=200),
    "search.excerpt_lines": KeySpec(40, "int", minimum=1, maximum=2000),
    "search.cold_budget_s": KeySpec(
        30.0,
        "float",
        minimum=0.0,
        maximum=86400.0,
        trust=Trust.LOWER,
        why="it is how long a search may wait for the index",
    ),
    "scope.focus": KeySpec(None, "optional_str"),
    "scope.focus_markers": KeySpec([], "list", check=focus_marker_problem),
    "scope.source_roots": KeySpec(
        [], "list", trust=Trust.INSIDE, why="it would index folders outside the workspace"
    ),
    # Names, not folders: a workspace file's entries resolve only in the workspace's own
    # virtualenv and node_modules (wherein.packages.resolve).
    "scope.packages": KeySpec(
        [], "list", trust=Trust.NAMES, why="it would read installed code outside the workspace"
    ),
    "scope.python": KeySpec(
        None,
        "optional_str",
        trust=Trust.USER,
        why="it names a Python environment outside the workspace",
    ),
    "walk.max_file_bytes": KeySpec(
        1_048_576,
        "int",
        minimum=1,
        maximum=1 << 40,
        trust=Trust.LOWER,
        why="a larger cap lets one file fill memory",
    ),
    "expansion.enabled": KeySpec(
        False, "bool", trust=Trust.TURN_OFF, why="it sends queries to a model endpoint"
    ),
    "expansion.model": KeySpec(None, "optional_str"),
    "expansion.api_base": KeySpec(
        None, "optional_str", trust=Trust.USER, why="it decides where queries are sent"
    ),
    "expansion.timeout_s": KeySpec(5.0, "timeout", trust=Trust.LOWER, why=_WAIT),
    "rerank.enabled": KeySpec(
        False, "bool", trust=Trust.TURN_OFF, why="it sends code to a model endpoint"
    ),
    "rerank.model": KeySpec(None, "optional_str"),
    "rerank.api_base": KeySpec(None, "optional_str", trust=Trust.USER, why=_WHERE_CODE),
    "rerank.timeout_s": KeySpec(5.0, "timeout", trust=Trust.LOWER, why=_WAIT),
    "rerank.candidates": KeySpec(20, "int", minimum=1, maximum=200),
}


def load_settings(
    workspace: Path | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Merge defaults, the user file, the workspace file and the environment.

    Raises:
        ConfigError: your own file does not parse, or it or the environment names an
            unknown key or gives a bad value (in the workspace's file, each is a warning).
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {key: spec.default for key, spec in KEYS.items()}
    sources: dict[str, str] = dict.fromkeys(KEYS, SOURCE_DEFAULT)
    warnings: list[str] = []

    layers: list[tuple[str, Path | None, dict[str, Any]]] = []
    user_path = user_config_path(env)
    user_text = read_config_text(user_path, follow_links=True)
    layers.append(
        (
            SOURCE_USER,
            user_path,
            _file_values(user_path, user_text),
        )
    )
    if workspace is not None:
        ws_path = workspace_config_path(workspace)
        # Whoever made the repository wrote this file: a link, a device, a file that is not
        # TOML is its loss, said once, never a reason for wherein to stop in the clone.
        try:
            ws_values = _file_values(ws_path, read_config_text(ws_path))
        except ConfigError as err:
            warnings.append(f"{err} Its settings are not used.")
            ws_values = {}
        layers.append((SOURCE_WORKSPACE, ws_path, ws_values))
    layers.append((SOURCE_ENV, None, _environment_values(env)))

    for source, path, raw in layers:
        where = str(path) if path else "the environment"
        for key, value in raw.items():
            spec = KEYS.get(key)
            if spec is None:
                if source == SOURCE_WORKSPACE:  # the repository's: ignored, as above
                    warnings.append(f"Unknown setting {echo_name(key)} in {where}. Ignored.")
                    continue
                unknown = f"Unknown setting {echo(key)} in {where}."
                raise ConfigError(f"{unknown} Known keys: {', '.join(sorted(KEYS))}.")
            if spec.trust is Trust.USER_FILE and source != SOURCE_USER:
                warnings.append(
                    f"Ignored '{key}' from {where}: it is honoured only from your own "
                    f"config file ({user_path})."
                )
                continue
            try:
                shown = echo_value if source == SOURCE_WORKSPACE else echo
                value, warning = coerce_value(key, spec, value, where, shown)
            except ConfigError as err:
                if source != SOURCE_WORKSPACE:
                    raise
                warnings.append(f"{err} Ignored.")
                continue
            if warning:
                warnings.append(warning)
            if source == SOURCE_WORKSPACE:
                value, refusal = _workspace_value(key, value, values[key], workspace)
                if refusal:
                    warnings.append(
                        f"Ignored: {where} may not {refusal}. A workspace file is written by "
                        f"whoever made the repository; set this in your own config file "
                        f"({user_path}) with 'wherein config set {key} ...'."
                    )
                if value is _REFUSED:
                    continue
            values[key] = value
            sources[key] = source
    kept = capped(warnings, MAX_SETTINGS_WARNINGS, "warnings about settings")
    return Settings(values=values, sources=sources, warnings=tuple(kept))


# Warnings one load keeps: a cloned `.wherein.toml` of 100,000 unknown keys made each recall
# answer 9 MB of them, and each command 100,000 lines on stderr.
MAX_SETTINGS_WARNINGS = 20


_REFUSED = object()


def untrusted_refusal(
    key: str, value: Any, trusted: Any, shown: Callable[[Any], str] = echo
) -> str | None:
    """Why a workspace file or the agent may not give `key` this `value`, else None.

    `trusted` is the value the user's own layers give it: a `Trust.LOWER` key may go below it.
    `Trust.INSIDE` is judged by `_workspace_value`, which knows the workspace. `shown` quotes
    the value (`untrusted.echo_value` for a workspace file's).
    """
    spec = KEYS[key]
    trust = spec.trust
    if trust in (Trust.ANY, Trust.INSIDE, Trust.NAMES):
        return None
    if trust is Trust.LOWER and value <= trusted:
        return None
    if trust is Trust.TURN_OFF and value is False:
        return None
    if trust is Trust.IN_PROCESS and value in IN_PROCESS_PROVIDERS:
        return None
    if trust is Trust.LOWER:
        return f"raise '{key}' above {display_value(trusted)}: {spec.why}"
    if trust is Trust.TURN_OFF:
        return f"turn on '{key}': {spec.why}"
    if trust is Trust.IN_PROCESS:
        return (
            f"set '{key}' to {shown(value)}: {spec.why}; only in-process providers "
            f"({', '.join(sorted(IN_PROCESS_PROVIDERS))}) keep code on this machine"
        )
    return f"set '{key}': {spec.why}"


def _workspace_value(
    key: str, value: Any, trusted: Any, workspace: Path | None
) -> tuple[Any, str | None]:
    """The part of a workspace file's `value` that may be used, and why any was dropped."""
    if KEYS[key].trust is not Trust.INSIDE:
        refusal = untrusted_refusal(key, value, trusted, echo_value)
        return (_REFUSED, refusal) if refusal else (value, None)
    kept = [entry for entry in value if workspace is not None and _inside(workspace, entry)]
    dropped = len(value) - len(kept)
    if not dropped:
        return kept, None
    return kept, (
        f"add folders outside the workspace to '{key}' ({dropped} of {len(value)} entries "
        f"dropped): {KEYS[key].why}"
    )


def all_inside(workspace: Path, entries: list[str]) -> bool:
    """Whether every `scope.source_roots` entry names a folder inside `workspace`."""
    return all(_inside(workspace, entry) for entry in entries)


def _inside(workspace: Path, entry: str) -> bool:
    """Whether a `scope.source_roots` entry names a folder inside `workspace`, links followed."""
    from wherein.roots import split_entry

    _, given = split_entry(entry)
    target = Path(given).expanduser()
    if not target.is_absolute():
        target = workspace / target
    try:
        resolved, base = target.resolve(), workspace.resolve()
    except (OSError, RuntimeError):  # a link loop: not a folder anyone can index
        return False
    return resolved == base or base in resolved.parents


def config_get(key: str, workspace: Path | None = None) -> tuple[str, str]:
    """The effective value of `key` as display text, and where it came from."""
    spec = _spec(key)
    settings = load_settings(workspace)
    value = settings[key]
    if spec.secret:
        shown = "(set)" if value else "(unset)"
    else:
        shown = display_value(value)
    return shown, settings.sources[key]


def config_set(key: str, raw_value: str, path: Path, *, workspace_file: bool = False) -> None:
    """Validate `raw_value` for `key` and write it into the TOML file at `path`.

    The file keeps its comments and other keys; it is replaced atomically, through a new file,
    never through a link planted at `path` or beside it (a link at the user's own file is
    followed: dotfile managers keep it that way). An endpoint URL the guard refuses
    (`wherein.endpoint.guard.check_url`) is a ConfigError and is not written, and so is a key
    that `workspace_file` (a `.wherein.toml`) may not set: it would be ignored when read.
    """
    import tomlkit

    spec = _spec(key)
    value, _ = coerce_value(key, spec, parse_text(spec, raw_value), "")
    if workspace_file:
        refusal = _workspace_value(key, value, load_settings()[key], path.parent)[1]
        if refusal:
            raise ConfigError(
                f"A workspace file may not {refusal}; it would be ignored there. "
                f"Set it in your own config file with 'wherein config set {key} ...' "
                "(without --workspace-file)."
            )
    if key.endswith(GUARDED_URL_SUFFIX) and value is not None:
        from wherein.endpoint.guard import check_url

        check_url(value, allow_remote=load_settings()["embedding.allow_remote"], key=key)
    if not workspace_file:
        path = Path(os.path.realpath(path))
    document = read_config_document(path, read_config_text(path, follow_links=not workspace_file))
    section_name, name = key.split(".", 1)
    section = document.get(section_name)
    if section is None:
        section = tomlkit.table()
        document[section_name] = section
    section[name] = value
    try:
        write_atomic(path, tomlkit.dumps(document).encode("utf-8"))
    except UnsafeFile as err:
        raise ConfigError(
            f"Not writing {path}: {err}. Remove it and run the command again."
        ) from err
    except OSError as err:
        raise ConfigError(
            f"Cannot write {path}: {err.strerror or err}. Fix its folder's permissions."
        ) from err


def _spec(key: str) -> KeySpec:
    spec = KEYS.get(key)
    if spec is None:
        raise ConfigError(f"Unknown setting {echo(key)}. Known keys: {', '.join(sorted(KEYS))}.")
    return spec


def _file_values(path: Path, text: str | None) -> dict[str, Any]:
    """A config file's keys as `section.key`, each as the file gives it."""
    return flatten_sections(read_config_toml(path, text), path, sorted(KEYS))


# wherein's own variables that are not settings: the data home, the session id a host
# passes, the fork server's folder, the test suite's switch for its golden files.
NOT_SETTINGS_ENV = frozenset(
    {"WHEREIN_HOME", "WHEREIN_SESSION_ID", "WHEREIN_PRELOAD_FOLDER", "WHEREIN_UPDATE_GOLDENS"}
)


def _environment_values(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings the environment gives (`WHEREIN_SEARCH_LIMIT` for `search.limit`).

    Raises:
        ConfigError: a `WHEREIN_` variable that is neither a setting nor one of
            NOT_SETTINGS_ENV, as an unknown key in your own file is: a typo set nothing.
    """
    wanted = {"WHEREIN_" + key.replace(".", "_").upper(): key for key in KEYS}
    found: dict[str, Any] = {}
    for name, text in env.items():
        key = wanted.get(name)
        if key is not None:
            found[key] = parse_text(KEYS[key], text)
        elif name.startswith("WHEREIN_") and name not in NOT_SETTINGS_ENV:
            import difflib

            close = difflib.get_close_matches(name, [*wanted, *NOT_SETTINGS_ENV], n=1)
            hint = f" Did you mean {close[0]}?" if close else ""
            raise ConfigError(
                f"Unknown setting {echo(name)} in the environment: no setting is named so."
                f"{hint} Unset it, or see 'wherein config list' for the settings."
            )
    return found
