"""One scripted history with every kind of commit eval must keep or drop, and what it yields."""

from __future__ import annotations

from pathlib import Path

from tests.evaluation.gitrepo import GitRepo

RETRY = (
    "def backoff_delay(attempt):\n"
    "    '''Seconds to wait before the next attempt: doubling, capped at a minute.'''\n"
    "    return min(60, 2 ** attempt)\n"
    "\n"
    "\n"
    "def retry_idempotent(call, attempts=3):\n"
    "    '''Call again after a connection reset, but only for idempotent requests.'''\n"
    "    for attempt in range(attempts):\n"
    "        try:\n"
    "            return call()\n"
    "        except ConnectionResetError:\n"
    "            wait(backoff_delay(attempt))\n"
)
ROUTING = (
    "class Router:\n"
    "    '''Map URL paths to handlers.'''\n"
    "\n"
    "    def add_route(self, path, handler):\n"
    "        self.routes[path.lower()] = handler\n"
    "\n"
    "    def dispatch(self, request):\n"
    "        return self.routes[request.path.lower()](request)\n"
)
SESSION = (
    "class Session:\n"
    "    '''Keep cookies between requests.'''\n"
    "\n"
    "    def send(self, request):\n"
    "        request.headers['Cookie'] = self.cookie_header()\n"
    "        return self.adapter.send(request)\n"
)
UTIL = "def parse_duration(text):\n    return int(text.rstrip('smh'))\n"
TEST = (
    "from app.retry import backoff_delay\n\n\n"
    "def test_backoff():\n"
    "    assert backoff_delay(1) == 2\n"
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"


def edit(text: str, line: str) -> str:
    return text + line + "\n"


def scripted_history(root: Path) -> GitRepo:
    """The history, oldest first; EXPECTED_* below say what eval must make of it."""
    repo = GitRepo(root)
    files = {
        "app/retry.py": RETRY,
        "app/routing.py": ROUTING,
        "app/session.py": SESSION,
        "app/util.py": UTIL,
        "tests/test_retry.py": TEST,
        "README.md": "# app\n",
        "CHANGELOG.md": "# Changes\n",
    }
    text = dict(files)

    def change(path: str, line: str) -> dict[str, str]:
        text[path] = edit(text[path], line)
        return {path: text[path]}

    repo.commit("Initial layout of the app", files)  # adds
    repo.commit(
        "fix(retry): retry idempotent requests on connection reset (#12)",
        {**change("app/retry.py", "# resets"), **change("CHANGELOG.md", "- retry on reset")},
    )
    repo.commit("Parse durations like 5m in the helpers", change("app/util.py", "# minutes"))
    repo.commit("Add tests for the backoff schedule", change("tests/test_retry.py", "# more"))
    repo.commit("Check the schedule against slow servers", change("tests/test_retry.py", "# x"))
    repo.commit(
        "Release 1.0.0", {**change("CHANGELOG.md", "## 1.0.0"), **change("app/retry.py", "# 1.0")}
    )
    repo.commit('Revert "Retry idempotent requests"', change("app/retry.py", "# reverted"))
    repo.commit(
        "Share one timeout across routing, sessions, retries and helpers",
        {
            **change("app/retry.py", "TIMEOUT = 5"),
            **change("app/routing.py", "TIMEOUT = 5"),
            **change("app/session.py", "TIMEOUT = 5"),
            **change("app/util.py", "TIMEOUT = 5"),
        },
    )
    repo.commit(
        "Send the session cookie with every routed request",
        {**change("app/routing.py", "# cookie"), **change("app/session.py", "# cookie")},
    )
    text["app/http/session.py"] = edit(text.pop("app/session.py"), "# moved")
    repo.commit(
        "Keep the cookie jar in its own package",
        {"app/http/session.py": text["app/http/session.py"]},
        move={"app/session.py": "app/http/session.py"},
    )
    repo.commit(
        "Label each backoff step with its delay",
        {**change("app/retry.py", "# labels"), "assets/timeline.png": PNG},
    )
    repo.commit("Refresh the timeline artwork", {"assets/timeline.png": PNG + b"\x01"})
    repo.commit("Drop the duration helpers module", remove=("app/util.py",))
    repo.commit_raw(b"Handle \xff\xfe headers in routing\n", change("app/routing.py", "# bytes"))
    repo.commit("Повторять запросы при сбросе соединения", change("app/retry.py", "# ru"))
    repo.commit("修复路由中的重定向大小写", change("app/routing.py", "# zh"))
    repo.commit("docs: explain the retry budget", change("app/retry.py", "# budget"))
    repo.commit("Fix it", change("app/routing.py", "# it"))
    repo.commit("Make `backoff_delay` grow by half each step", change("app/retry.py", "# half"))
    repo.commit("Fix typo in the router docstring", change("app/routing.py", "# typo"))
    repo.commit("Label each backoff step with its delay", change("app/retry.py", "# again"))
    repo.commit("Bump version to 1.0.1", change("CHANGELOG.md", "## 1.0.1"))
    return repo


# (query, gold) of the questions kept, newest first.
EXPECTED_QUESTIONS = [
    ("Label each backoff step with its delay", {"app/retry.py"}),
    ("Make `backoff_delay` grow by half each step", {"app/retry.py"}),
    ("修复路由中的重定向大小写", {"app/routing.py"}),
    ("Повторять запросы при сбросе соединения", {"app/retry.py"}),
    ("Keep the cookie jar in its own package", {"app/http/session.py"}),
    (
        "Send the session cookie with every routed request",
        {"app/routing.py", "app/http/session.py"},
    ),
    ("retry idempotent requests on connection reset", {"app/retry.py"}),
]
EXPECTED_DROPPED = {
    "undecodable": 1,
    "revert": 1,
    "release": 1,
    "version": 1,
    "docs": 1,
    "tests": 1,
    "typo": 1,
    "short": 1,
    "no_source": 2,  # tests only, artwork only
    "too_many": 2,  # the initial layout (four new source files) and the shared timeout
    "adds_or_deletes": 1,
    "gone": 1,
    "duplicate": 1,
}
EXPECTED_CONSIDERED = 22
