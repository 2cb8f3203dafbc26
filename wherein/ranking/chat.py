"""One question to a local chat model, through the guarded endpoint (`wherein.endpoint`).

Query expansion and reranking both send text from the repository or the query to a model
server, so they go through exactly what the embedders use (`wherein.endpoint.guard` and
`wherein.endpoint.client`): a loopback-only URL resolved once, pinned addresses, no redirects, no
environment proxies. Two dialects: Ollama's `/api/chat` and OpenAI's `/v1/chat/completions`
(llama.cpp's server, LM Studio, vLLM, Ollama too).

httpx and the client are imported by `load_client`, not with this module: a search with both
steps off (the default) should not pay for loading an HTTP stack.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wherein.errors import ModelStepError, ModelTimeout, ModelUnreachable
from wherein.redaction import server_text
from wherein.settings import Settings

if TYPE_CHECKING:
    import httpx

__all__ = [
    "OLLAMA",
    "OPENAI",
    "ChatModel",
    "ask_model",
    "chat_model",
    "json_block",
    "load_client",
    "rest_key",
]

OLLAMA = "ollama"
OPENAI = "openai"
OLLAMA_PATH = "/api/chat"
OPENAI_PREFIX = "/v1"
OPENAI_PATH = "/chat/completions"
# A list of phrasings or twenty scores is a few hundred bytes; a megabyte means something else
# is answering, and must not fill memory.
MAX_ANSWER_BYTES = 1 << 20
# How much of a server's error text goes into a status reason.
MAX_SERVER_TEXT = 200
# Ollama's default context (2048 tokens in many versions) would silently cut a rerank prompt
# of twenty excerpts (about 4,000 tokens); 8192 fits it with room for the answer.
OLLAMA_NUM_CTX = 8192
# Reasoning models wrap their thoughts in these before the answer; the answer is after them.
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
# A usable answer is short; past this much text, or this many false starts, there is none.
MAX_JSON_SCAN_CHARS = 64 << 10
MAX_JSON_STARTS = 64


@dataclass(frozen=True)
class ChatModel:
    """Where one step's questions go, read from settings without touching the network."""

    step: str  # "expansion" | "rerank"
    url: str
    url_key: str  # the setting the URL came from, for messages
    dialect: str
    model: str
    api_key: str | None
    allow_remote: bool
    keep_alive: str

    def describe(self) -> str:
        return f"'{self.model}' at {self.url}"


def chat_model(settings: Settings, step: str) -> ChatModel:
    """The chat model `step` uses: its own api_base, else the embedding one.

    The dialect is OpenAI's when the URL's path ends in /v1, or when the step borrows the
    embedding URL and the embedding provider is `openai`; Ollama's otherwise. The embedding
    API key is sent only to the embedding server's own URL.

    Raises:
        ModelStepError: `<step>.model` is not set.
    """
    model = settings[f"{step}.model"]
    if not model:
        raise ModelStepError(
            f"{step}.model is not set, so there is no chat model to ask; set it to a model "
            f"your server has (wherein config set {step}.model NAME) or turn {step} off."
        )
    own = settings[f"{step}.api_base"]
    shared = settings["embedding.api_base"]
    url = own or shared
    openai = url.rstrip("/").endswith(OPENAI_PREFIX) or (
        not own and settings["embedding.provider"] == OPENAI
    )
    same_server = url.rstrip("/") == shared.rstrip("/")
    return ChatModel(
        step=step,
        url=url,
        url_key=f"{step}.api_base" if own else "embedding.api_base",
        dialect=OPENAI if openai else OLLAMA,
        model=model,
        api_key=settings["embedding.api_key"] if same_server else None,
        allow_remote=settings["embedding.allow_remote"],
        keep_alive=settings["embedding.keep_alive"],
    )


def rest_key(settings: Settings, step: str) -> str:
    """What a miss of `step`'s model is kept under (`wherein.endpoint.rest`): its server,
    model and deadline, so a step that shares both with the other rests with it, and a
    longer deadline (what a miss's message suggests) asks again at once."""
    url = settings[f"{step}.api_base"] or settings["embedding.api_base"]
    return f"chat {settings[f'{step}.model']} at {url} within {settings[f'{step}.timeout_s']:g} s"


def load_client() -> None:
    """Import the HTTP client in the calling thread, before a step's worker needs it.

    A worker importing httpx while the search thread imports the embedding model would
    contend for the same import locks, and on a cold start spend its deadline importing.
    """
    import wherein.endpoint.client  # noqa: F401


def ask_model(target: ChatModel, system: str, user: str, *, timeout_s: float) -> str:
    """The model's answer text to one system and user message, thinking stripped.

    Call it under `request_deadline`: `timeout_s` bounds each read, the deadline the whole call.

    Raises:
        ConfigError: the guard refuses the URL or an address it resolves to.
        ModelTimeout: no answer before the deadline.
        ModelStepError: the server is down, refused, redirected or answered without content.
    """
    from wherein.endpoint.client import build_client
    from wherein.endpoint.guard import open_endpoint

    endpoint = open_endpoint(target.url, allow_remote=target.allow_remote, key=target.url_key)
    if target.dialect == OPENAI:
        base = endpoint.path
        path = OPENAI_PATH if base.endswith(OPENAI_PREFIX) else OPENAI_PREFIX + OPENAI_PATH
    else:
        path = OLLAMA_PATH
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    payload: dict[str, Any] = {"model": target.model, "messages": messages, "stream": False}
    if target.dialect == OPENAI:
        # response_format is left out: not every OpenAI-compatible server accepts it.
        payload["temperature"] = 0
    else:
        keep_alive: str | float = target.keep_alive
        if _NUMBER.fullmatch(keep_alive.strip()):
            keep_alive = float(keep_alive)
        payload.update(
            format="json",
            keep_alive=keep_alive,
            options={"temperature": 0, "num_ctx": OLLAMA_NUM_CTX},
        )
    with build_client(endpoint, api_key=target.api_key, max_connections=1) as client:
        status, body = _post(client, endpoint.url(path), payload, target, timeout_s)
    if status != 200:
        raise _status_error(target, status, body)
    try:
        answer = json.loads(body)
    except (ValueError, RecursionError):
        raise _malformed(target, "an answer that is not JSON") from None
    content = _content(answer, target.dialect)
    if content is None:
        raise _malformed(target, "JSON without the message content")
    return _THINKING.sub("", content).strip()


def json_block(text: str) -> Any:
    """The first JSON object or array in a model's text (fences and prose around it allowed).

    Returns None when there is none: the caller treats that as no usable answer.
    """
    decoder = json.JSONDecoder()
    text = text[:MAX_JSON_SCAN_CHARS]
    starts = [i for i, char in enumerate(text) if char in "{["][:MAX_JSON_STARTS]
    for start in starts:
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested past the limit
            continue
        return value
    return None


def _post(
    client: httpx.Client, url: str, payload: dict[str, Any], target: ChatModel, timeout_s: float
) -> tuple[int, bytes]:
    import httpx

    try:
        with client.stream("POST", url, json=payload, timeout=timeout_s) as response:
            if 300 <= response.status_code < 400:
                location = _clean(response.headers.get("location", ""), target.api_key)
                raise ModelStepError(
                    f"The {target.step} model {target.describe()} answered with a redirect "
                    f"(HTTP {response.status_code} to '{location}'), which wherein never "
                    f"follows; set {target.url_key} to the address that answers itself."
                )
            body = bytearray()
            for piece in response.iter_bytes():
                body += piece
                if len(body) > MAX_ANSWER_BYTES:
                    raise _malformed(target, f"more than {MAX_ANSWER_BYTES >> 20} MiB")
            return response.status_code, bytes(body)
    except httpx.TimeoutException:
        raise ModelTimeout(
            f"The {target.step} model {target.describe()} did not answer within its deadline; "
            f"raise {target.step}.timeout_s if it is only slow."
        ) from None
    except httpx.TransportError as err:
        raise ModelUnreachable(
            f"The {target.step} model {target.describe()} cannot be reached "
            f"({type(err).__name__}: {_clean(str(err), target.api_key) or 'no detail'}); "
            f"start the server or fix {target.url_key}."
        ) from None


def _content(answer: Any, dialect: str) -> str | None:
    if not isinstance(answer, dict):
        return None
    if dialect == OPENAI:
        choices = answer.get("choices")
        message = (
            choices[0].get("message")
            if isinstance(choices, list) and choices and isinstance(choices[0], dict)
            else None
        )
    else:
        message = answer.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


def _status_error(target: ChatModel, status: int, body: bytes) -> ModelStepError:
    text = _server_text(body, target.api_key)
    detail = f"{': ' + text if text else ''}"
    if status == 404 and "model" in text.lower():
        return ModelStepError(
            f"The {target.step} model {target.describe()} is not available (HTTP 404{detail}); "
            f"pull or load it there, or set {target.step}.model."
        )
    return ModelStepError(
        f"The {target.step} model {target.describe()} answered HTTP {status}{detail}; check "
        "the server's log."
    )


def _malformed(target: ChatModel, what: str) -> ModelStepError:
    return ModelStepError(
        f"The {target.step} model {target.describe()} answered with {what}; check that the "
        "server speaks the chat API."
    )


def _server_text(body: bytes, api_key: str | None) -> str:
    """The server's own error message, from Ollama's or OpenAI's error shape, or raw."""
    try:
        answer = json.loads(body)
    except (ValueError, RecursionError):
        return _clean(body.decode("utf-8", "replace"), api_key)
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        error = error.get("message") or error.get("code")
    return _clean(str(error if error is not None else answer), api_key)


def _clean(text: str, api_key: str | None) -> str:
    """Short, one line, and never the API key (a server may echo it back)."""
    return server_text(text, api_key, MAX_SERVER_TEXT)
