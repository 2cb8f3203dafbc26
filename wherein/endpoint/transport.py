"""Layer 2 of the endpoint guard: an httpx transport that dials only pre-validated addresses.

httpx resolves a URL's host when it connects. Between the guard's check and that connection a
DNS answer could change and send the text elsewhere, so this transport's network backend never
resolves: `connect_tcp` checks that it was asked for the guarded host and port, then dials the
addresses the guard validated. The Host header and TLS SNI keep the name as written.

It also carries an overall deadline per request (`request_deadline`): httpx's timeouts apply to
each read, so a server trickling one byte a second would otherwise never time out.
"""

from __future__ import annotations

import contextlib
import contextvars
import ssl
import time
from collections.abc import Iterator
from typing import Any

import httpcore
import httpx

from wherein.endpoint.guard import Endpoint

__all__ = ["PinnedTransport", "request_deadline"]

# Idle keep-alive connections are closed after this long: long enough to span the batches of
# one `embed` call, short enough not to hold a server's slot between searches.
KEEPALIVE_EXPIRY_S = 5.0

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "wherein_request_deadline", default=None
)

# httpcore's exceptions and the httpx ones callers catch, most specific first.
_EXCEPTIONS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
)


@contextlib.contextmanager
def request_deadline(seconds: float) -> Iterator[None]:
    """Every read, write and connect in this block must finish `seconds` from now."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _remaining(timeout: float | None, expired: type[Exception]) -> float | None:
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("The request's overall deadline passed.")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose reads and writes never outlive the current request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _remaining(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _remaining(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(
            ssl_context, server_hostname, _remaining(timeout, httpcore.ConnectTimeout)
        )
        return _DeadlineStream(inner)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _PinnedBackend(httpcore.NetworkBackend):
    """Connects to the guarded host's validated addresses, and to nothing else."""

    def __init__(self, endpoint: Endpoint) -> None:
        if not endpoint.addresses:
            raise ValueError(f"{endpoint.base_url} has not been resolved by the guard.")
        self._endpoint = endpoint
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        wanted = (self._endpoint.host, self._endpoint.port)
        if (host.lower().strip("[]"), port) != wanted:
            raise httpcore.ConnectError(
                f"Refused to connect to {host}:{port}: only {wanted[0]}:{wanted[1]} passed "
                "the endpoint guard."
            )
        failure: Exception | None = None
        for address in self._endpoint.addresses:
            try:
                # An IP literal: getaddrinfo parses it without a lookup.
                stream = self._inner.connect_tcp(
                    address,
                    port,
                    _remaining(timeout, httpcore.ConnectTimeout),
                    local_address,
                    socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as err:
                failure = err
                continue
            return _DeadlineStream(stream)
        assert failure is not None
        raise failure

    def connect_unix_socket(self, path: str, timeout=None, socket_options=None):
        raise httpcore.ConnectError("Unix sockets are not an embedding endpoint.")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _ResponseStream(httpx.SyncByteStream):
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        with _mapped_exceptions():
            yield from self._inner

    def close(self) -> None:
        if hasattr(self._inner, "close"):
            self._inner.close()


@contextlib.contextmanager
def _mapped_exceptions() -> Iterator[None]:
    try:
        yield
    except Exception as err:
        for source, target in _EXCEPTIONS:
            if isinstance(err, source):
                raise target(str(err)) from err
        raise


class PinnedTransport(httpx.BaseTransport):
    """An httpx transport for one guarded endpoint; it cannot reach any other place."""

    def __init__(self, endpoint: Endpoint, *, max_connections: int) -> None:
        # trust_env=False: SSL_CERT_FILE and friends from the environment are not read either.
        context = httpx.create_ssl_context(trust_env=False) if endpoint.scheme == "https" else None
        self._pool = httpcore.ConnectionPool(
            ssl_context=context,
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=KEEPALIVE_EXPIRY_S,
            retries=0,
            network_backend=_PinnedBackend(endpoint),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _mapped_exceptions():
            response = self._pool.handle_request(core_request)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()
