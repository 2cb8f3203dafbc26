"""A loopback chat server for the model steps: Ollama `/api/chat` and OpenAI `/v1/chat/completions`.

Built on the embedding tests' server (`tests.embedding.fake_server`), so it counts connections,
records every request and plays scripted `Reply`, `WEDGE` and `TRICKLE` answers the same way.
It adds what the steps need: a `reply(step, user_text)` function that writes the model's
content (well, garbage or prose), `delay_s` to answer late, `wedged` to accept every request
and never answer, and `arrived`, an event set when a request comes in.

Run alone (`python -m tests.ranking.chat_server [--delay-ms N] [--wedge]`) it serves the good
replies for scripts/bench_steps.py; it prints `PORT <n>` and stops when stdin closes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from tests.embedding.fake_server import WEDGE, FakeEmbeddingServer, Recorded, Reply
from wherein.ranking import expansion, rerank

CHAT_MODEL = "tiny-chat"
OLLAMA_CHAT = "/api/chat"
OPENAI_CHAT = "/v1/chat/completions"
CHAT_PATHS = (OLLAMA_CHAT, OPENAI_CHAT)
_CANDIDATE = re.compile(r"^Candidate (\d+):\n(.*?)(?=^Candidate \d+:|\Z)", re.DOTALL | re.MULTILINE)

ReplyFn = Callable[[str, str], str]


def step_of(messages: Any) -> str:
    """Which step asked: "expansion", "rerank", or "other", by its system prompt."""
    system = messages[0].get("content") if isinstance(messages, list) and messages else None
    if system == expansion.SYSTEM_PROMPT:
        return "expansion"
    if system == rerank.SYSTEM_PROMPT:
        return "rerank"
    return "other"


def good_reply(step: str, user: str) -> str:
    """What a competent model might say: three phrasings, or word-overlap scores 0-10."""
    if step == "expansion":
        words = user.split()
        phrasings = [f"{user} implementation", f"where is {user} handled", "_".join(words)]
        return json.dumps({"queries": phrasings})
    if step == "rerank":
        query = user.split("\n", 1)[0].removeprefix("Query: ").lower().split()
        scores = {}
        for number, passage in _CANDIDATE.findall(user):
            text = passage.lower()
            share = sum(word in text for word in query) / max(len(query), 1)
            scores[number] = round(10 * share, 1)
        return json.dumps(scores)
    return "Hello."


class FakeChatServer(FakeEmbeddingServer):
    """Serves chat answers on 127.0.0.1 until `stop`; use as a context manager."""

    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        delay_s: float = 0.0,
        wedged: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.reply = reply or good_reply
        self.delay_s = delay_s
        self.wedged = wedged
        self.arrived = threading.Event()
        self.chat_models = {CHAT_MODEL}

    def chat_requests(self, step: str | None = None) -> list[Recorded]:
        """The chat requests received, optionally only those of one step."""
        return [
            r
            for r in self.requests
            if r.path in CHAT_PATHS and (step is None or step_of(r.body.get("messages")) == step)
        ]

    def _record(self, recorded: Recorded) -> Reply | str | None:
        scripted = super()._record(recorded)
        self.arrived.set()
        if scripted is None and self.wedged:
            return WEDGE
        return scripted

    def answer(self, path: str, request: Any) -> Reply:
        if path not in CHAT_PATHS:
            return super().answer(path, request)
        model = request.get("model") if isinstance(request, dict) else None
        messages = request.get("messages") if isinstance(request, dict) else None
        if model not in self.chat_models:
            message = f'model "{model}" not found, try pulling it first'
            if path == OLLAMA_CHAT:
                return Reply(404, {"error": message})
            return Reply(404, {"error": {"message": message, "type": "invalid_request_error"}})
        if self.delay_s:
            self.stopping.wait(self.delay_s)
        user = messages[-1]["content"] if isinstance(messages, list) and messages else ""
        content = self.reply(step_of(messages), user)
        message = {"role": "assistant", "content": content}
        if path == OLLAMA_CHAT:
            return Reply(200, {"model": model, "message": message, "done": True})
        return Reply(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            },
        )


def main(argv: list[str] | None = None) -> int:
    """Serve good replies until stdin closes: late by --delay-ms, or never with --wedge."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay-ms", type=float, default=0.0, help="answer this late")
    parser.add_argument("--wedge", action="store_true", help="accept and never answer")
    args = parser.parse_args(argv)
    with FakeChatServer(delay_s=args.delay_ms / 1000.0, wedged=args.wedge) as server:
        print(f"PORT {server.port}", flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
