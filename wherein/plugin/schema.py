"""The `recall` tool's listed input schema, the schema of its results, and the check of its
arguments.

Every model that has the tool reads its listing in every session, so the listing says what an
agent needs and no more (docs/contracts.md has the rest): the input schema without the caps
the server enforces anyway, each setting's own schema or the output schema. The server lists no
output schema: MCP does not ask for one beside `structuredContent`, and a Claude Code model
would read it as well as the result. `result_schema()` is still written out by hand, every
object level with `additionalProperties: false`, and the tests check every result against it.

Arguments are checked against the full schema (`checked_input_schema`: every cap, every
setting's type and range, from the same `KEYS` the settings layer checks), cleaned once before
anything uses them (`clean_arguments`), and a refusal names the argument and quotes at most
MAX_ECHO_CHARS of its value, escaped: an agent that sends 100 KB must not get 100 KB back.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from wherein.config import KEYS, KeySpec
from wherein.errors import UsageError
from wherein.file_filter import MAX_PATTERNS
from wherein.plugin.policy import AGENT_KEYS, in_process_providers
from wherein.text_match import MAX_PATTERN_CHARS
from wherein.untrusted import MAX_ECHO_CHARS, as_text, echo, one_line

__all__ = [
    "ACTIONS",
    "AGENT_MAX_LIMIT",
    "DESCRIPTION",
    "TOOL_NAME",
    "checked_input_schema",
    "clean_arguments",
    "input_schema",
    "result_schema",
    "validate_arguments",
]

TOOL_NAME = "recall"
ACTIONS = ("search", "related", "index", "status", "configure")
# More excerpts than this is a file dump rather than an answer: at ~1-2 KB each, 50 already
# costs more context than most files the agent would otherwise read.
AGENT_MAX_LIMIT = 50
MAX_QUERY_CHARS = 2000
# PATH_MAX on Linux: no folder the agent can name is longer.
MAX_PATH_CHARS = 4096
# No string in a call is longer: not a query, a folder, a setting's value or a key.
MAX_ARGUMENT_CHARS = MAX_PATH_CHARS
# How much of the schema's own reason a refusal repeats.
MAX_REASON_CHARS = 200

DESCRIPTION = (
    "Find where something is handled in this repository: ranked code excerpts with line "
    "numbers for a question in words or a name. Use it before reading files, to learn where "
    "to look. Prefer grep when you know the exact symbol or string; read a file when you need "
    "all of it; do not re-read a line range this tool just returned. action=related lists "
    "chunks like the one at query=FILE:LINE; action=index builds the whole index (in the "
    "background unless run_in_background=false), status shows the index and the embedding "
    "model, configure lists the settings or writes config.set."
)

_NULLABLE_STRING = {"type": ["string", "null"]}
_COUNT = {"type": "integer", "minimum": 0}


def _strict(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """An object schema that allows exactly `properties`."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


def _key_schema(key: str, spec: KeySpec) -> dict[str, Any]:
    """The JSON Schema of one setting's value, from the same spec the settings layer checks."""
    if spec.kind == "bool":
        return {"type": "boolean"}
    if spec.kind in ("int", "float", "timeout"):
        schema: dict[str, Any] = {"type": "integer" if spec.kind == "int" else "number"}
        if spec.minimum is not None:
            schema["minimum"] = spec.minimum
        if spec.maximum is not None:
            schema["maximum"] = spec.maximum
        return schema
    text = {"maxLength": MAX_PATH_CHARS}  # a folder, a model name, a key: never longer
    if spec.kind == "list":
        return {"type": "array", "items": {"type": "string", "pattern": "^[^,]*$", **text}}
    if key == "embedding.provider":
        return {"type": "string", "enum": in_process_providers()}
    if spec.secret:
        unchanged = "blank or null leaves it unchanged"
        return {"type": ["string", "null"], **text, "description": unchanged}
    if spec.kind == "optional_str":
        return {"type": ["string", "null"], **text}
    return {"type": "string", **text}


def input_schema() -> dict[str, Any]:
    """What `recall` accepts, as listed to the agent: the arguments and what each is for."""
    return _input_schema(checked=False)


def checked_input_schema() -> dict[str, Any]:
    """What `recall` accepts, as checked: the listed schema with every cap and each setting's
    own schema; built at call time because providers come from the registry."""
    return _input_schema(checked=True)


def _input_schema(checked: bool) -> dict[str, Any]:
    def text(description: str, cap: int = MAX_PATH_CHARS) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string", "description": description}
        return {**schema, "maxLength": cap} if checked else schema

    def strings(description: str) -> dict[str, Any]:
        """A list of languages or patterns; `clean_arguments` caps each string's length."""
        schema = {"type": "array", "items": {"type": "string"}, "description": description}
        return {**schema, "maxItems": MAX_PATTERNS} if checked else schema

    if checked:
        settings = _strict({key: _key_schema(key, KEYS[key]) for key in AGENT_KEYS})
    else:  # an unknown key is named by the check, with the keys configure lists
        settings = {"type": "object"}
    return _strict(
        {
            "query": text(
                "What to find, in words or a name; FILE:LINE for action=related.", MAX_QUERY_CHARS
            ),
            "action": {"type": "string", "enum": list(ACTIONS), "default": "search"},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": AGENT_MAX_LIMIT,
                "description": "Excerpts to return (default: search.limit, 8 unless set).",
            },
            "path": text("Only results under this folder."),
            "focus": text("Rank only inside this folder; '.' for the whole workspace."),
            "lang": strings("Only these languages (python, ts, ...)."),
            "glob": strings("Only files matching these .gitignore-style patterns."),
            "exclude": strings("Skip files matching these .gitignore-style patterns."),
            "exact": text(
                "Only chunks containing this exact text; query is then optional.",
                MAX_PATTERN_CHARS,
            ),
            "run_in_background": {"type": "boolean", "default": True},
            "config": _strict(
                {
                    "set": {**settings, "description": "Settings to write, {key: value}."},
                    "file": {
                        "type": "string",
                        "enum": ["user", "workspace"],
                        "default": "user",
                        "description": "user: your config file; workspace: .wherein.toml.",
                    },
                }
            ),
        }
    )


_SCOPE = _strict(
    {
        "focus": _NULLABLE_STRING,
        "resolved_by": {"type": "string", "enum": ["explicit", "marker", "workspace"]},
    },
    ["focus", "resolved_by"],
)

# [path, start_line, end_line], then the absolute path for a result from an extra root.
_LINE = {"type": "integer", "minimum": 1}
_RESULT = {
    "type": "array",
    "prefixItems": [{"type": "string"}, _LINE, _LINE, {"type": "string"}],
    "items": False,
    "minItems": 3,
}

_PENDING = _strict({"files": _COUNT, "chunks": _COUNT}, ["files", "chunks"])

_JOB = _strict(
    {
        "id": {"type": "string"},
        "state": {"type": "string", "enum": ["started", "running", "done", "failed", "cancelled"]},
        "stage": {"type": "string", "enum": ["starting", "scan", "fast", "embed", "finished"]},
        "files_done": _COUNT,
        "files_total": _COUNT,
        "chunks_done": _COUNT,
        "chunks_total": _COUNT,
        "elapsed_s": {"type": "number", "minimum": 0},
        "summary": _NULLABLE_STRING,
        "error": _NULLABLE_STRING,
    },
    [
        "id",
        "state",
        "stage",
        "files_done",
        "files_total",
        "chunks_done",
        "chunks_total",
        "elapsed_s",
        "summary",
        "error",
    ],
)

_INDEX = _strict(
    {
        "exists": {"type": "boolean"},
        "path": {"type": "string"},
        "files": _COUNT,
        "skipped_files": _COUNT,
        "chunks": _COUNT,
        "vectors": _COUNT,
        "pending": _PENDING,
        "embedder": _NULLABLE_STRING,
        "size_bytes": _COUNT,
        "low_disk": _NULLABLE_STRING,
        "error": {"type": "string"},
    },
    ["exists", "path"],
)

_EMBEDDING = _strict(
    {
        "provider": {"type": "string"},
        "model": _NULLABLE_STRING,
        "dim": {"type": ["integer", "null"]},
        "in_process": {"type": "boolean"},
        "url": _NULLABLE_STRING,
        "answered": {"type": ["boolean", "null"]},
        "error": _NULLABLE_STRING,
        "api_key_set": {"type": "boolean"},
        "allow_remote": {"type": "boolean"},
    },
    [
        "provider",
        "model",
        "dim",
        "in_process",
        "url",
        "answered",
        "error",
        "api_key_set",
        "allow_remote",
    ],
)

_SETTING = _strict(
    {"key": {"type": "string"}, "value": {"type": "string"}, "source": {"type": "string"}},
    ["key", "value", "source"],
)

_CONFIG = _strict(
    {
        "file": {"type": "string", "enum": ["user", "workspace"]},
        "path": {"type": "string"},
        "changed": {"type": "array", "items": _SETTING},
        "unchanged": {"type": "array", "items": {"type": "string"}},
        "settings": {"type": "array", "items": _SETTING},
    },
    ["file", "path", "changed", "unchanged", "settings"],
)

_USAGE = _strict(
    {
        "session": {"type": "string"},
        "calls": _COUNT,
        "searches": _COUNT,
        "returned_chars": _COUNT,
        "source_chars": _COUNT,
        "kept_out_chars": _COUNT,
        "ratio": {"type": "number", "minimum": 0},
        "kept_out_tokens_estimate": _COUNT,
        "line": {"type": "string"},
    },
    [
        "session",
        "calls",
        "searches",
        "returned_chars",
        "source_chars",
        "kept_out_chars",
        "ratio",
        "kept_out_tokens_estimate",
        "line",
    ],
)

_CHANGES = _strict(
    {
        "detector": {"type": "string", "enum": ["inotify", "stat", "walk"]},
        "reason": _NULLABLE_STRING,
    },
    ["detector", "reason"],
)

_ERROR = _strict(
    {"kind": {"type": "string"}, "message": {"type": "string"}},
    ["kind", "message"],
)


def result_schema() -> dict[str, Any]:
    """What every `recall` result's structured content looks like; the sections present
    depend on the action (docs/contracts.md)."""
    return _strict(
        {
            "text": {"type": "string"},
            "action": {"type": "string", "enum": list(ACTIONS)},
            "ok": {"type": "boolean"},
            "workspace": {"type": "string"},
            "scope": _SCOPE,
            "results": {"type": "array", "items": _RESULT},
            "pending": _PENDING,
            "warnings": {"type": "array", "items": {"type": "string"}},
            "job": _JOB,
            "index": _INDEX,
            "embedding": _EMBEDDING,
            "config": _CONFIG,
            "usage": _USAGE,
            "changes": _CHANGES,
            "fill_error": {"type": "string"},
            "error": _ERROR,
        },
        ["text", "action", "ok"],
    )


def clean_arguments(arguments: Any, where: str = "") -> Any:
    """The call's arguments with every string (keys too) fit to use: lone surrogates, which a
    JSON string may carry and nothing downstream can encode, become U+FFFD.

    Raises:
        UsageError: a string holds a NUL, which no query, folder or setting can contain, or is
            longer than MAX_ARGUMENT_CHARS (a message that quoted it must stay short).
    """
    if isinstance(arguments, dict):
        cleaned = {}
        for key, value in arguments.items():
            name = clean_arguments(key, f"{where} name {echo(key)}".lstrip())
            cleaned[name] = clean_arguments(value, f"{where}.{name}" if where else name)
        return cleaned
    if isinstance(arguments, list):
        return [clean_arguments(item, f"{where}[{i}]") for i, item in enumerate(arguments)]
    if not isinstance(arguments, str):
        return arguments
    name = one_line(where)[:MAX_ECHO_CHARS]
    if len(arguments) > MAX_ARGUMENT_CHARS:  # before anything quotes it, the schema included
        raise UsageError(
            f"Argument {name} is {len(arguments)} characters long; no argument may be longer "
            f"than {MAX_ARGUMENT_CHARS}."
        )
    if "\x00" in arguments:
        raise UsageError(
            f"Argument {name} holds a NUL character ({echo(arguments)}); send it without one."
        )
    return as_text(arguments)


def validate_arguments(arguments: dict[str, Any]) -> None:
    """Check the call's arguments against the input schema.

    Raises:
        UsageError: naming the first argument that does not fit, and what it should be.
    """
    validator = jsonschema.Draft202012Validator(checked_input_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is None:
        return
    path = [str(part) for part in error.absolute_path]
    where = ".".join(path) or "arguments"
    # The listing leaves each setting's own schema out: say where the agent can read them.
    see = "See the recall input schema"
    if path[:2] == ["config", "set"]:
        see = "recall action=configure lists the settings"
    raise UsageError(
        f"Argument {one_line(where)[:MAX_ECHO_CHARS]} is not accepted: {_reason(error)}. {see}."
    )


# The limits the listed schema leaves out (each would cost every session's tool listing),
# said in the refusal instead: "is too long" alone names no length to keep under.
_LIMIT_WORDS = {"maxLength": "characters", "maxItems": "items", "maxProperties": "settings"}


def _reason(error: jsonschema.exceptions.ValidationError) -> str:
    """The schema's reason, short: jsonschema quotes the offending value whole."""
    reason = error.message
    whole = repr(error.instance)
    if len(whole) > MAX_ECHO_CHARS:
        reason = reason.replace(whole, echo(error.instance))
    reason = one_line(reason)
    if len(reason) > MAX_REASON_CHARS:
        reason = reason[:MAX_REASON_CHARS] + "..."
    unit = _LIMIT_WORDS.get(str(error.validator))
    if unit is not None:
        reason += f" (at most {error.validator_value} {unit})"
    return reason
