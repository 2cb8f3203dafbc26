"""The `recall` tool's declared input and output schemas, and the check of its arguments.

Every object level says `additionalProperties: false`: a host that enforces the output schema
rejects a result with one stray field, so the schema is written out by hand and results are
built field by field to match it (DESIGN.md, "The agent tool `recall`").

Arguments are cleaned here once, before anything uses them (`clean_arguments`), and a refusal
names the argument and quotes at most MAX_ECHO_CHARS of its value, escaped: an agent that
sends 100 KB must not get 100 KB back.
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
    "clean_arguments",
    "input_schema",
    "output_schema",
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
    "Find where something is handled in this repository: ranked code excerpts "
    "(path:lines, similarity, symbols) for a question in words or a name. Use it before "
    "reading files, to learn where to look. Prefer grep when you know the exact symbol or "
    "string; read a file when you need all of it; do not re-read a line range this tool just "
    "returned. action=related lists chunks like the one at query=FILE:LINE; action=index "
    "builds the whole index (in the background by default), status shows index state, "
    "configure changes settings."
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


def _strings(description: str) -> dict[str, Any]:
    """A list of languages or patterns; `clean_arguments` caps each string's length."""
    return {
        "type": "array",
        "items": {"type": "string"},
        "maxItems": MAX_PATTERNS,
        "description": description,
    }


def input_schema() -> dict[str, Any]:
    """What `recall` accepts; built at call time because providers come from the registry."""
    settable = {key: _key_schema(key, KEYS[key]) for key in AGENT_KEYS}
    return _strict(
        {
            "query": {
                "type": "string",
                "maxLength": MAX_QUERY_CHARS,
                "description": "What you are looking for, in words or a name; FILE:LINE for "
                "action=related.",
            },
            "action": {
                "type": "string",
                "enum": list(ACTIONS),
                "default": "search",
                "description": "search (default), related, index, status or configure.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": AGENT_MAX_LIMIT,
                "description": "How many excerpts (default from settings, 8).",
            },
            "path": {
                "type": "string",
                "maxLength": MAX_PATH_CHARS,
                "description": "Only results under this folder of the workspace.",
            },
            "focus": {
                "type": "string",
                "maxLength": MAX_PATH_CHARS,
                "description": "Rank only inside this folder of the workspace; '.' for all of it.",
            },
            "lang": _strings("Only these languages (python, ts, ...)."),
            "glob": _strings("Only files matching these .gitignore-style patterns."),
            "exclude": _strings("Skip files matching these .gitignore-style patterns."),
            "exact": {
                "type": "string",
                "maxLength": MAX_PATTERN_CHARS,
                "description": "Only chunks containing this exact text; query is then optional.",
            },
            "run_in_background": {
                "type": "boolean",
                "default": True,
                "description": "action=index: return at once and report progress in status.",
            },
            "config": _strict(
                {
                    "set": {
                        **_strict(settable),
                        "description": "Settings to write, by key. Omit to read settings.",
                    },
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

_RESULT = _strict(
    {
        "rank": {"type": "integer", "minimum": 1},
        "path": {"type": "string"},
        "source_path": _NULLABLE_STRING,
        "start_line": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1},
        "symbols": {"type": "array", "items": {"type": "string"}},
        "similarity": {"type": ["number", "null"]},
        "stale": {"type": "boolean"},
        "truncated": {"type": "boolean"},
    },
    [
        "rank",
        "path",
        "source_path",
        "start_line",
        "end_line",
        "symbols",
        "similarity",
        "stale",
        "truncated",
    ],
)

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

_ERROR = _strict(
    {"kind": {"type": "string"}, "message": {"type": "string"}},
    ["kind", "message"],
)


def output_schema() -> dict[str, Any]:
    """What every `recall` result looks like; the sections present depend on the action."""
    return _strict(
        {
            "text": {
                "type": "string",
                "description": "What to read: the answer, excerpts fenced as repository data.",
            },
            "action": {"type": "string", "enum": list(ACTIONS)},
            "ok": {"type": "boolean"},
            "workspace": {"type": "string"},
            "query": {"type": "string"},
            "scope": _SCOPE,
            "results": {"type": "array", "items": _RESULT},
            "pending": _PENDING,
            "warnings": {"type": "array", "items": {"type": "string"}},
            "job": _JOB,
            "index": _INDEX,
            "embedding": _EMBEDDING,
            "config": _CONFIG,
            "usage": _USAGE,
            "error": _ERROR,
        },
        ["text", "action", "ok", "workspace"],
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
    validator = jsonschema.Draft202012Validator(input_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is None:
        return
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    raise UsageError(
        f"Argument {one_line(where)[:MAX_ECHO_CHARS]} is not accepted: {_reason(error)}. "
        "See the recall input schema."
    )


def _reason(error: jsonschema.exceptions.ValidationError) -> str:
    """The schema's reason, short: jsonschema quotes the offending value whole."""
    reason = error.message
    whole = repr(error.instance)
    if len(whole) > MAX_ECHO_CHARS:
        reason = reason.replace(whole, echo(error.instance))
    reason = one_line(reason)
    return reason if len(reason) <= MAX_REASON_CHARS else reason[:MAX_REASON_CHARS] + "..."
