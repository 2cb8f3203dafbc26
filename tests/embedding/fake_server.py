"""A small Ollama- and OpenAI-compatible embedding server on a loopback port, and a canary.

The server answers `POST /api/embed` and `POST /v1/embeddings` like the real ones (including
their "model not found" 404s), counts the connections it accepts and records every request.
Tests script odd answers by queueing `Reply` objects, `WEDGE` (accept, read, never answer) or
`TRICKLE` (answer one byte at a time, forever). With `echo_authorization` set, it refuses
every request with a 401 whose body quotes the Authorization header it received in the forms a
careless server might (as sent, Python repr, JSON, percent- and HTML-encoded). The canary is
a bare listener that counts connections which must never happen.

Run alone (`python -m tests.embedding.fake_server --minilm`) it serves the real in-process
MiniLM model, for scripts/bench_http.py; it prints `PORT <n>` and stops when stdin closes.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import html
import json
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, quote_plus

import numpy as np

LOOPBACK = "127.0.0.1"
MODELS = {"nomic-embed-text": 64, "model-a": 32, "model-b": 48}
TRICKLE_EVERY_S = 0.05
WEDGE = "wedge"
TRICKLE = "trickle"


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status, a body (bytes, or JSON-able), extra headers."""

    status: int = 200
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        # allow_nan: the tests need to send the NaN a broken server would.
        return json.dumps(self.body, allow_nan=True).encode()


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def hash_vectors(texts: Sequence[str], model: str, dim: int) -> np.ndarray:
    """Deterministic bag-of-words vectors, different per model; never all zero."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        out[row, 0] = 0.5
        for token in text.lower().split():
            digest = hashlib.blake2b(f"{model}/{token}".encode(), digest_size=4).digest()
            out[row, int.from_bytes(digest, "little") % dim] += 1.0
    return out


class FakeEmbeddingServer:
    """Serves embeddings on 127.0.0.1 (or `host`) until `stop`; use as a context manager."""

    def __init__(
        self,
        host: str = LOOPBACK,
        port: int = 0,
        models: dict[str, int] | None = None,
        embed_fn: Callable[[list[str]], np.ndarray] | None = None,
    ) -> None:
        self.models = dict(MODELS if models is None else models)
        self.embed_fn = embed_fn
        self.queue: deque[Reply | str] = deque()
        self.requests: list[Recorded] = []
        self.connections = 0
        self.reverse_openai_order = False
        self.close_after_reply = False
        self.echo_authorization = False
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._httpd = _Server((host, port), _Handler)
        self._httpd.owner = self
        self.host, self.port = self._httpd.server_address[:2]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> FakeEmbeddingServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeEmbeddingServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accepted(self, sock: socket.socket) -> None:
        with self._lock:
            self.connections += 1
            self._sockets.append(sock)

    def _record(self, recorded: Recorded) -> Reply | str | None:
        with self._lock:
            self.requests.append(recorded)
            return self.queue.popleft() if self.queue else None

    def answer(self, path: str, request: Any) -> Reply:
        """What a healthy Ollama (`/api/embed`) or OpenAI-compatible server would say."""
        if path not in ("/api/embed", "/v1/embeddings"):
            return Reply(404, b"404 page not found", {"Content-Type": "text/plain"})
        model = request.get("model") if isinstance(request, dict) else None
        texts = request.get("input") if isinstance(request, dict) else None
        if isinstance(texts, str):
            texts = [texts]
        if model not in self.models:
            message = f'model "{model}" not found, try pulling it first'
            if path == "/api/embed":
                return Reply(404, {"error": message})
            return Reply(
                404,
                {"error": {"message": message, "type": "api_error", "param": None, "code": None}},
            )
        if self.embed_fn is not None:
            vectors = np.asarray(self.embed_fn(list(texts)), dtype=np.float32)
        else:
            vectors = hash_vectors(texts, model, self.models[model])
        rows = vectors.tolist()
        if path == "/api/embed":
            return Reply(200, {"model": model, "embeddings": rows, "prompt_eval_count": len(texts)})
        data = [{"object": "embedding", "index": i, "embedding": row} for i, row in enumerate(rows)]
        if self.reverse_openai_order:
            data.reverse()
        return Reply(
            200,
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            },
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeEmbeddingServer

    def process_request(self, request, client_address) -> None:
        self.owner._accepted(request)
        super().process_request(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: pytest shows a failing test's own output, not the server's."""

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        headers = {k.lower(): v for k, v in self.headers.items()}
        scripted = owner._record(Recorded("POST", self.path, headers, body))
        if scripted == WEDGE:
            owner.stopping.wait()
            self.close_connection = True
            return
        if scripted == TRICKLE:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            while not owner.stopping.wait(TRICKLE_EVERY_S):
                try:
                    self.wfile.write(b"a")
                    self.wfile.flush()
                except OSError:
                    break
            self.close_connection = True
            return
        if owner.echo_authorization and scripted is None:
            scripted = echo_reply(self.headers.get("Authorization", ""))
        reply = scripted if isinstance(scripted, Reply) else owner.answer(self.path, body)
        payload = reply.encoded()
        self.send_response(reply.status)
        headers = {"Content-Type": "application/json", **reply.headers}
        if owner.close_after_reply:
            headers["Connection"] = "close"
            self.close_connection = True
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST


def echo_reply(header: str) -> Reply:
    """A 401 quoting `header` (as http.server decoded it: Latin-1) in many encodings."""
    raw = header.encode("latin-1")
    forms = [
        header,
        repr(header),
        repr(raw),
        json.dumps(header),
        quote(header, safe=""),
        quote_plus(header),
        html.escape(header),
        raw.decode("utf-8", "replace"),
    ]
    body = "invalid credentials: " + " | ".join(forms)
    return Reply(401, body.encode("utf-8"), {"Content-Type": "text/plain; charset=utf-8"})


class Canary:
    """A listener that must never be connected to; `connections` counts those that were."""

    def __init__(self, host: str = LOOPBACK, port: int = 0) -> None:
        self.connections = 0
        self._sock = socket.create_server((host, port))
        self._sock.settimeout(0.05)
        self.host, self.port = self._sock.getsockname()[:2]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def __enter__(self) -> Canary:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()


def main(argv: list[str] | None = None) -> int:
    """Serve until stdin closes; with --minilm the answers come from the real default model."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minilm", action="store_true", help="serve the in-process MiniLM")
    args = parser.parse_args(argv)
    embed_fn = None
    models = None
    if args.minilm:
        from wherein.embedding.minilm import DIMENSION, MiniLMEmbedder

        embed_fn = MiniLMEmbedder().embed
        models = {"all-minilm": DIMENSION}
    with FakeEmbeddingServer(models=models, embed_fn=embed_fn) as server:
        print(f"PORT {server.port}", flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
