"""A headless Chromium for tests, driven over the DevTools protocol on a pipe.

`--remote-debugging-pipe` makes Chromium read protocol messages from fd 3 and write them to
fd 4, each JSON object ended by a NUL byte (what Puppeteer's `pipe: true` uses), so no port is
opened and no websocket client is needed. The browser gets a fresh profile, and a proxy and
resolver that lead nowhere, so nothing it tries can leave the machine; the test still watches
every request the page makes.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
import zlib
from pathlib import Path

import numpy as np

BROWSER_NAMES = ("chromium", "chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",  # containers often give /dev/shm 64 MB, too little for a renderer
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
    # Nothing may reach a network: every host resolves to nothing and the proxy is the
    # discard port on loopback, where no one listens.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=127.0.0.1:9",
)
PIPE_IN, PIPE_OUT = 3, 4  # the fds Chromium reads commands from and writes answers to
HIGH_FD = 10  # above 3 and 4, so moving the pipes onto them cannot clobber each other
TIMEOUT_S = 30.0  # a generous ceiling for one protocol call; a healthy call takes milliseconds


class BrowserError(Exception):
    """The browser died, timed out or answered a call with an error."""


def find_browser() -> str | None:
    """Path of Debian's chromium, or None."""
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One Chromium process and one page target in it."""

    def __init__(self, executable: str, profile: Path) -> None:
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()

        def move_pipes() -> None:  # runs in the child between fork and exec
            read_end = fcntl.fcntl(commands_read, fcntl.F_DUPFD, HIGH_FD)
            write_end = fcntl.fcntl(answers_write, fcntl.F_DUPFD, HIGH_FD)
            os.dup2(read_end, PIPE_IN)
            os.dup2(write_end, PIPE_OUT)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=move_pipes,  # only dup2 calls: safe between fork and exec
            close_fds=False,  # os.pipe fds are non-inheritable; dup2 copies are inherited
        )
        os.close(commands_read)
        os.close(answers_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session: str | None = None

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def call(self, method: str, params: dict | None = None, *, page: bool = True) -> dict:
        """Send one command (to the page when `page`) and return its result."""
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params or {}}
        if page and self.session is not None:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def open_page(self, width: int, height: int) -> None:
        """Create a page target, attach to it, and turn on the domains the test watches."""
        target = self.call("Target.createTarget", {"url": "about:blank"}, page=False)
        attached = self.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, page=False
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def wait_for_event(self, method: str) -> dict:
        """The first event named `method`, waiting for it if it has not come yet."""
        deadline = time.monotonic() + TIMEOUT_S
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method:
                    return event
            seen = len(self.events)
            self.events.append(self._receive(deadline))

    def evaluate(self, expression: str):
        """The JSON value of a JavaScript expression in the page."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, width: int, height: int) -> bytes:
        """A PNG of the page's top `width` x `height` CSS pixels, beyond the viewport too."""
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        shot = self.call(
            "Page.captureScreenshot",
            {
                "format": "png",
                "clip": clip,
                "captureBeyondViewport": True,
                "optimizeForSpeed": True,
            },
        )
        return base64.b64decode(shot["data"])

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(BrowserError, OSError):  # it may be gone already
                self.call("Browser.close", page=False)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for fd in (self._commands, self._answers):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no answer from the browser in {TIMEOUT_S} s")
            ready, _, _ = select.select([self._answers], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise BrowserError(f"the browser exited (code {self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)


def decode_png(data: bytes) -> np.ndarray:
    """Pixels of an 8-bit RGB or RGBA, non-interlaced PNG as a (height, width, channels) array.

    Rows filtered None, Sub or Up (all that Chromium's fast encoder writes) are undone with
    numpy; Average and Paeth rows fall back to a plain loop.
    """
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, chunks, header = 8, [], b""
    while position < len(data):
        length = int.from_bytes(data[position : position + 4], "big")
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
    width, height = int.from_bytes(header[0:4], "big"), int.from_bytes(header[4:8], "big")
    depth, colour, interlace = header[8], header[9], header[12]
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), dtype=np.uint8)
    rows = raw.reshape(height, 1 + width * channels)
    pixels = np.zeros((height, width * channels), dtype=np.uint8)
    previous = np.zeros(width * channels, dtype=np.uint8)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:]
        if kind == 0:
            current = line.copy()
        elif kind == 1:
            current = np.cumsum(line.reshape(width, channels), axis=0, dtype=np.uint8).ravel()
        elif kind == 2:
            current = line + previous  # uint8 arithmetic wraps modulo 256, as PNG specifies
        else:
            current = _unfilter_slowly(kind, line, previous, channels)
        pixels[y] = current
        previous = current
    return pixels.reshape(height, width, channels)


def _unfilter_slowly(kind: int, line: np.ndarray, previous: np.ndarray, bpp: int) -> np.ndarray:
    out = [0] * len(line)
    up = previous.tolist()
    for i, value in enumerate(line.tolist()):
        left = out[i - bpp] if i >= bpp else 0
        if kind == 3:
            out[i] = (value + (left + up[i]) // 2) & 0xFF
            continue
        corner = up[i - bpp] if i >= bpp else 0
        estimate = left + up[i] - corner
        pa, pb, pc = abs(estimate - left), abs(estimate - up[i]), abs(estimate - corner)
        best = left if pa <= pb and pa <= pc else (up[i] if pb <= pc else corner)
        out[i] = (value + best) & 0xFF
    return np.array(out, dtype=np.uint8)
