"""What the HTTP embedders share: one guarded client, batching, bounded concurrency, checks.

The client is the guard's layers 3 and 4: redirects are never followed and the environment's
proxies are never read (`trust_env=False`, which also keeps .netrc credentials out). Its
transport is layer 2 (`wherein.endpoint.transport`). An answer is checked before anything is
stored: a wrong count, a wrong width, NaN or infinity, an empty or all-zero vector is an error.
"""

from __future__ import annotations

import json
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
import numpy as np

from wherein.backoff import Backoff
from wherein.embedding.base import EmbedderIdentity, normalize_rows
from wherein.endpoint import rest
from wherein.endpoint.client import build_client
from wherein.endpoint.guard import open_endpoint
from wherein.endpoint.transport import request_deadline
from wherein.errors import EmbedderError, EndpointUnreachable
from wherein.redaction import server_text
from wherein.settings import Settings

__all__ = ["DEFAULT_MODEL", "PROBE_CEILING_S", "HttpEmbedder", "build_client"]

# Both Ollama and OpenAI-compatible servers (llama.cpp, LM Studio, vLLM) serve it; the README's
# setup pulls it.
DEFAULT_MODEL = "nomic-embed-text"
# One short text answers in milliseconds once a model is loaded; 10 s covers a cold load of a
# small embedding model on a laptop CPU. Also the ceiling docs/contracts.md sets for `status`.
PROBE_CEILING_S = 10.0
PROBE_TEXT = "wherein"
# 16 texts x 4096 dims x ~20 characters a float is about 1.3 MB; 64 MiB leaves room for
# larger batches and stops a runaway answer from filling memory.
MAX_RESPONSE_BYTES = 64 << 20
# Retries only where safe: a refused connection sent nothing, and 429/503 are the server
# asking to be asked again. A timeout is not retried: a wedged server would double the wait.
MAX_ATTEMPTS = 2
RETRY_BACKOFF_S = 0.25
RETRY_STATUSES = frozenset({429, 503})
# How much of a server's error text goes into our message.
MAX_SERVER_TEXT = 300
# After the endpoint did not answer, this embedder does not ask it again for a while (the
# rest doubling with each miss in a row, to the ceiling): a `wherein serve` session keeps
# one embedder, and a server that hangs cost each search the whole timeout (30 s).
REST_S = 15.0
REST_CEILING_S = 300.0
# How often a session's answers are told to the other processes (`wherein.endpoint.rest`).
SHARED_REST_CHECK_S = 5.0


class HttpEmbedder:
    """An embedder behind an HTTP endpoint; subclasses speak one server's dialect.

    Construction runs the guard (a refusal is a ConfigError) and sends one probe text, so the
    identity's dimension is known before anything is embedded.
    """

    provider: ClassVar[str]
    start_hint: ClassVar[str] = "start the embedding server"

    def __init__(self, settings: Settings, *, retry: bool = True) -> None:
        self.endpoint = open_endpoint(
            settings["embedding.api_base"], allow_remote=settings["embedding.allow_remote"]
        )
        self.model: str = settings["embedding.model"] or DEFAULT_MODEL
        self.batch_size: int = settings["embedding.batch_size"]
        self.concurrency: int = settings["embedding.concurrency"]
        self.timeout_s: float = settings["embedding.timeout_s"]
        self.keep_alive: str = settings["embedding.keep_alive"]
        self._api_key: str | None = settings["embedding.api_key"]
        self._attempts = MAX_ATTEMPTS if retry else 1
        self.client = build_client(
            self.endpoint, api_key=self._api_key, max_connections=self.concurrency
        )
        weakref.finalize(self, self.client.close)
        self.dimension: int | None = None
        self._rest = Backoff(REST_S, REST_CEILING_S)  # after calls it did not answer
        self._last_miss = ""
        # Every process's misses (`wherein.endpoint.rest`): this one's Backoff ends with it.
        self._rest_key = rest.rest_key(settings)
        self._rest_checked_at = 0.0
        kept = rest.resting(self._rest_key)
        if kept is not None:
            raise EndpointUnreachable(kept.message())
        probe_s = min(self.timeout_s, PROBE_CEILING_S)
        probe = self._asked(lambda: self._embed_batch([PROBE_TEXT], probe_s))
        self.dimension = probe.shape[1]
        self.identity = EmbedderIdentity(self.provider, self.model, self.dimension)

    @property
    def url(self) -> str:
        return self.endpoint.url(self.path)

    @property
    def path(self) -> str:
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed in batches of `batch_size`, `concurrency` requests at a time, in order.

        Raises:
            EndpointUnreachable: the server refused, timed out or broke off.
            EmbedderError: it answered with an error, a malformed answer or a redirect (never
                followed: a search ranks without this model, as when it does not answer).
        """
        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        resting = self._rest.left()
        if resting > 0:
            raise EndpointUnreachable(f"{self._last_miss} Not asked again for {resting:.0f} s.")
        try:
            vectors = self._asked(lambda: self._embed_all(texts))
        except EndpointUnreachable as err:
            self._rest.miss()
            self._last_miss = str(err)
            raise
        self._rest.clear()
        return vectors

    def _asked(self, ask: Callable[[], np.ndarray]) -> np.ndarray:
        """`ask()`, its outcome kept for other processes: a miss that made the caller wait
        starts a shared rest, and an answer ends one (`wherein.endpoint.rest`)."""
        started = time.monotonic()
        try:
            vectors = ask()
        except EndpointUnreachable as err:
            if time.monotonic() - started >= rest.WORTH_RESTING_S:
                rest.note_miss(self._rest_key, str(err))
            raise
        # Any answer ends a rest another process's miss started: at once after a miss of
        # this one's or on the probe, else at most every SHARED_REST_CHECK_S (a file read).
        now = time.monotonic()
        if self._rest.misses or self.dimension is None or now >= self._rest_checked_at:
            self._rest_checked_at = now + SHARED_REST_CHECK_S
            rest.note_answer(self._rest_key)
        return vectors

    def _embed_all(self, texts: Sequence[str]) -> np.ndarray:
        batches = [
            list(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)
        ]
        if len(batches) == 1 or self.concurrency == 1:
            parts = [self._embed_batch(batch, self.timeout_s) for batch in batches]
        else:
            workers = min(self.concurrency, len(batches))
            with ThreadPoolExecutor(workers, thread_name_prefix="wherein-embed") as pool:
                futures = [pool.submit(self._embed_batch, b, self.timeout_s) for b in batches]
                try:
                    parts = [future.result() for future in futures]
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
        return normalize_rows(np.vstack(parts))

    def close(self) -> None:
        self.client.close()

    def describe(self) -> str:
        """The endpoint and model, for messages."""
        return f"{self.endpoint.base_url} (model '{self.model}')"

    # The dialect: subclasses say what to send and where the vectors are in the answer.

    def _payload(self, texts: list[str]) -> dict[str, Any]:
        raise NotImplementedError

    def _vectors(self, body: Any, count: int) -> list[Any]:
        raise NotImplementedError

    def _missing_model(self, server_text: str) -> str | None:
        """The message for a 404 that says the model is absent; None for any other 404."""
        raise NotImplementedError

    # The shared half.

    def _embed_batch(self, texts: list[str], timeout_s: float) -> np.ndarray:
        status, body = self._post(self._payload(texts), timeout_s)
        if status != 200:
            raise self._status_error(status, body)
        try:
            answer = json.loads(body)
        except (ValueError, RecursionError):  # nested past the parser: malformed too
            raise self._malformed("an answer that is not JSON") from None
        return self._matrix(self._vectors(answer, len(texts)), len(texts))

    def _post(self, payload: dict[str, Any], timeout_s: float) -> tuple[int, bytes]:
        url = self.url
        for attempt in range(1, self._attempts + 1):
            try:
                with (
                    request_deadline(timeout_s),
                    self.client.stream("POST", url, json=payload, timeout=timeout_s) as response,
                ):
                    if response.is_redirect or 300 <= response.status_code < 400:
                        raise self._redirect_error(response)
                    status, body = response.status_code, self._read(response)
            except httpx.TimeoutException:
                raise EndpointUnreachable(
                    f"The embedding endpoint {self.describe()} did not answer within "
                    f"{timeout_s:g} s; check that it is running, or raise embedding.timeout_s."
                ) from None
            except httpx.ConnectError as err:
                if attempt < self._attempts:
                    time.sleep(RETRY_BACKOFF_S * attempt)
                    continue
                raise EndpointUnreachable(
                    f"The embedding endpoint {self.describe()} cannot be reached "
                    f"({self._clean(str(err)) or 'connection refused'}); {self.start_hint}, "
                    "or fix embedding.api_base."
                ) from None
            except httpx.TransportError as err:
                raise EndpointUnreachable(
                    f"The embedding endpoint {self.describe()} broke off the answer "
                    f"({type(err).__name__}: {self._clean(str(err))}); check the server's log."
                ) from None
            if status in RETRY_STATUSES and attempt < self._attempts:
                time.sleep(RETRY_BACKOFF_S * attempt)
                continue
            return status, body
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _read(self, response: httpx.Response) -> bytes:
        body = bytearray()
        for piece in response.iter_bytes():
            body += piece
            if len(body) > MAX_RESPONSE_BYTES:
                raise self._malformed(f"an answer larger than {MAX_RESPONSE_BYTES >> 20} MiB")
        return bytes(body)

    def _redirect_error(self, response: httpx.Response) -> EmbedderError:
        location = response.headers.get("location", "")
        try:
            target = urlsplit(location).hostname or self.endpoint.host
        except ValueError:
            target = location
        return EmbedderError(
            f"The embedding endpoint {self.endpoint.base_url} answered with a redirect "
            f"(HTTP {response.status_code}) to the host '{self._clean(target)}', which wherein "
            "never follows: set embedding.api_base to the address that answers itself."
        )

    def _status_error(self, status: int, body: bytes) -> EmbedderError:
        text = self._server_text(body)
        if status == 404:
            missing = self._missing_model(text)
            if missing:
                return EmbedderError(missing)
            return EmbedderError(
                f"The embedding endpoint {self.endpoint.base_url} has no {self.path} (HTTP 404"
                f"{': ' + text if text else ''}); check embedding.api_base and "
                "embedding.provider."
            )
        if status in (401, 403):
            return EmbedderError(
                f"The embedding endpoint {self.describe()} refused the request (HTTP {status}"
                f"{': ' + text if text else ''}); check embedding.api_key."
            )
        error = EndpointUnreachable if status in RETRY_STATUSES or status >= 500 else EmbedderError
        return error(
            f"The embedding endpoint {self.describe()} answered HTTP {status}"
            f"{': ' + text if text else ''}; check the server's log."
        )

    def _matrix(self, rows: Any, count: int) -> np.ndarray:
        """Check every row before any is used; returns float32 rows of the known width."""
        if not isinstance(rows, list) or len(rows) != count:
            got = len(rows) if isinstance(rows, list) else type(rows).__name__
            raise self._malformed(f"{got} vectors for {count} texts")
        width = self.dimension
        for row in rows:
            if not isinstance(row, list) or not row:
                raise self._malformed("an empty or missing vector")
            if not all(type(x) in (int, float) for x in row):
                raise self._malformed("a vector with values that are not numbers")
            if width is None:
                width = len(row)
            if len(row) != width:
                raise self._malformed(f"a vector of width {len(row)} where {width} was expected")
        matrix = np.asarray(rows, dtype=np.float64)
        if not np.isfinite(matrix).all():
            raise self._malformed("a vector with NaN or infinite values")
        peaks = np.abs(matrix).max(axis=1, keepdims=True)
        if not peaks.all():
            raise self._malformed("an all-zero vector")
        # Each row scaled to a largest value of 1 while still float64: a finite value past
        # float32's range (1e300) is infinite once cast, and one below it (1e-300) zero, so
        # the unit rows made of them were NaN or zero, stored and ranked as vectors.
        return (matrix / peaks).astype(np.float32)

    def _malformed(self, what: str) -> EmbedderError:
        return EmbedderError(
            f"The embedding endpoint {self.describe()} answered with {what}; nothing was "
            "stored. Check that the server and model are embedding ones."
        )

    def _server_text(self, body: bytes) -> str:
        """The server's own error message, from Ollama's or OpenAI's error shape, or raw."""
        try:
            answer = json.loads(body)
        except (ValueError, RecursionError):  # nested past the parser: malformed too
            return self._clean(body.decode("utf-8", "replace"))
        error = answer.get("error") if isinstance(answer, dict) else None
        if isinstance(error, dict):
            error = error.get("message") or error.get("code")
        return self._clean(str(error if error is not None else answer))

    def _clean(self, text: str) -> str:
        """Short, one line, and never the API key (a server may echo it back)."""
        return server_text(text, self._api_key, MAX_SERVER_TEXT)
