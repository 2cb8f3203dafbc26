"""Write a synthetic agent-conversation corpus in Claude Code's and Codex's transcript shapes.

    python scripts/make_transcripts.py OUT [--conversations 200] [--seed 7]
        [--codex-share 0.3] [--start 2026-09-01] [--days 60]
    python scripts/make_transcripts.py OUT --grow N [--seed 8]

Claude Code transcripts go to OUT/claude/projects/<project>/<session>.jsonl (subagent
transcripts under <session>/subagents/), Codex rollouts to
OUT/codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl. Point CLAUDE_CONFIG_DIR at OUT/claude
and CODEX_HOME at OUT/codex to read them.

How a conversation is drawn (one seeded random.Random, so a seed gives the same files):
- a topic out of fourteen everyday coding tasks (pagination, a flaky CI test, a migration, a
  memory leak, ...), each with its own project, files, functions and phrasing; wording is
  assembled from per-topic sentences, so conversations on one topic differ in detail;
- turns per conversation: lognormal, median 6; each turn is a person's message, then one to
  three assistant responses, each written as Claude Code writes them: one line per content
  block (thinking, text, tool_use), the usage repeated, followed by the tool result on a user
  line;
- the scaffolding real transcripts carry and history must not index: tool results, thinking,
  slash-command markup and its caveat (5% of conversations), a compaction summary (3%), a
  `<synthetic>` notice (2%), subagent sidechains (10%), and once, an echoed recall prompt
  (a fenced block of quotations), which must not be indexed again;
- Codex rollouts (--codex-share) carry session_meta, turn_context, the environment context
  and AGENTS.md instructions as user input, reasoning, function calls and their output, and
  the event_msg copies of each message.
- most messages carry a detail of their own (a count, a file, a timing), so few texts repeat
  across conversations, as in real use.
One planted conversation (Claude, project shop) settles how a nightly supplier sync should
wait and try again after an outage, sharing no word, no token of wherein's tokenizer (stems
and identifier parts included) and no substring with the planted query "retrying transient
network failures"; other conversations do use its words, mostly one at a time (test
failures, a network blip in the rate limiter, a transient stale read), and a few CI
conversations (a "rare" line, in about a quarter of them) mention CI failures from the network
dropping, so keywords alone point elsewhere.

OUT/expected.json holds the generator's own counts (conversations and the messages history
must index), the planted query and where its answer is. With --grow N, N transcripts chosen by
--seed get one more exchange each (a person's message and an assistant answer, with a tool
call between), appended as the agent would, and expected.json is updated.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

MEDIAN_TURNS, TURNS_SIGMA = 6, 0.6
COMMAND_SHARE, COMPACT_SHARE, SYNTHETIC_SHARE, SUBAGENT_SHARE = 0.05, 0.03, 0.02, 0.10
MODEL = "claude-sonnet-4-6"
CODEX_MODEL = "gpt-5-codex"
VERSION = "2.0.31"
PLANTED_QUERY = "retrying transient network failures"
PLANTED_SESSION = "5eed0000-0000-4000-8000-00000000beef"

TOPICS: dict[str, dict] = {
    "pagination": {
        "project": "/home/dev/shop",
        "files": ["api/orders.py", "api/pagination.py", "tests/test_orders.py"],
        "funcs": ["list_orders", "paginate", "encode_cursor"],
        "asks": [
            "The orders endpoint returns every row at once and times out for big customers. "
            "Can we page it?",
            "Switch {func} from offset paging to a cursor so inserts don't shift pages.",
            "What should the page size default be, and should clients be allowed to raise it?",
            "The mobile app wants a total count too. Is that expensive with cursors?",
        ],
        "answers": [
            "I'd use keyset pagination: order by (created_at, id) and hand back an opaque "
            "cursor encoding the last pair. Offsets get slower the deeper you go.",
            "{func} in {file} now takes `after` and `limit`; the cursor is base64 JSON of the "
            "last row's sort key, so a row inserted meanwhile can't appear twice.",
            "Default 50, maximum 200: bigger pages make a single response slow enough to hit "
            "the gateway timeout again.",
            "An exact count means a full scan for the largest accounts. I'd return "
            "`has_more` and offer the count as a separate, cached call.",
        ],
    },
    "flaky_test": {
        "project": "/home/dev/api",
        "files": ["tests/test_webhooks.py", ".github/workflows/ci.yml", "tests/conftest.py"],
        "funcs": ["test_webhook_delivery", "fake_clock", "wait_until"],
        "asks": [
            "{func} is flaky on CI, maybe one run in ten. Locally it always passes.",
            "Can you find out why the CI run failed on main this morning?",
            "Is it the test or the code? I don't want to just add a sleep.",
            "Mark it xfail for now? I'd rather not, but the release is blocked.",
        ],
        "answers": [
            "The test asserts right after posting the event, but delivery runs on a thread; "
            "on a slow runner the assertion wins the race. It is the test, not the code.",
            "I replaced the fixed sleep in {file} with {func}, which polls the outbox for up "
            "to two seconds, so the test waits for the event instead of a guess.",
            "Looking at the last 30 CI runs, all 4 failures are this test, each on the "
            "shared runner pool; none on the larger machines.",
            "I'd rather fix it than mark it: the fix is six lines and xfail tends to stay forever.",
        ],
    },
    "migration": {
        "project": "/home/dev/api",
        "files": ["migrations/0042_split_names.py", "models/user.py", "scripts/backfill.py"],
        "funcs": ["forwards", "backfill_names", "User.full_name"],
        "asks": [
            "We need to split `name` into first and last name without downtime.",
            "The backfill locked the users table for a minute on staging. Why?",
            "Can the migration be reversed if the deploy goes wrong?",
            "How do we handle names with a single word?",
        ],
        "answers": [
            "Three steps: add nullable columns, backfill in batches of 1000 outside the "
            "migration, then switch reads and drop the old column in a later release.",
            "The UPDATE ran in one statement over 2M rows. {func} in {file} now walks the "
            "primary key in batches and commits each, so locks stay short.",
            "Yes, {func} has a matching backwards step until we drop `name`; after that the "
            "data lives only in the new columns.",
            "Single-word names go to first_name with an empty last_name; nothing is guessed.",
        ],
    },
    "memory_leak": {
        "project": "/home/dev/ml",
        "files": ["serve/worker.py", "serve/cache.py", "serve/model.py"],
        "funcs": ["predict", "lru_features", "load_model"],
        "asks": [
            "The inference worker grows by about 200 MB an hour until the OOM killer gets it.",
            "Is it the model or our code? tracemalloc output attached.",
            "Could the feature cache be the culprit? It has no size limit.",
            "What's a safe max size for that cache?",
        ],
        "answers": [
            "The snapshot diff points at {file}: {func} keeps every request's feature dict in "
            "a module-level dict keyed by request id, and nothing ever evicts them.",
            "I bounded {func} with an LRU of 10k entries; memory is flat over a two-hour "
            "soak test now.",
            "The model itself is stable after warm-up; the growth is all Python objects from "
            "our side.",
            "10k entries is about 80 MB at the current feature width; measure again if the "
            "feature set grows.",
        ],
    },
    "logging": {
        "project": "/home/dev/infra",
        "files": ["app/logging.py", "deploy/vector.toml", "app/middleware.py"],
        "funcs": ["configure_logging", "RequestIdMiddleware", "JsonFormatter"],
        "asks": [
            "Our logs are plain text and impossible to search in the log store. Go JSON?",
            "Every line should carry the request id so we can follow one request.",
            "The log volume doubled after that change. Can we cut it?",
            "Don't log the Authorization header, obviously.",
        ],
        "answers": [
            "{func} in {file} now emits one JSON object per line with time, level, logger, "
            "message and any extra fields; the collector parses it without a regex.",
            "The request id comes from the incoming header or a fresh UUID and is stored in "
            "a contextvar, so every log line in that request picks it up.",
            "Most of the volume is health checks at INFO. I dropped them to DEBUG and sample "
            "successful request logs at 10%.",
            "Headers pass through a deny-list before logging: Authorization, Cookie and "
            "X-Api-Key are replaced with a placeholder.",
        ],
    },
    "auth_refresh": {
        "project": "/home/dev/web",
        "files": ["src/auth/session.ts", "src/api/client.ts", "src/auth/refresh.ts"],
        "funcs": ["refreshToken", "withAuth", "scheduleRefresh"],
        "asks": [
            "Users get logged out after an hour even though they're active.",
            "Two tabs both refresh the token at once and one of them gets a 401.",
            "Where should the refresh token live, localStorage or a cookie?",
            "Can we refresh a bit before expiry instead of after the first 401?",
        ],
        "answers": [
            "The access token lives an hour and nothing renews it: {func} only runs at "
            "login. It now runs five minutes before expiry.",
            "Refreshes now go through a single promise shared by every caller, and across "
            "tabs a BroadcastChannel tells the others the new token.",
            "An httpOnly, SameSite=strict cookie: script cannot read it, so an XSS bug "
            "cannot steal it.",
            "{func} in {file} schedules the renewal from the token's exp claim minus a "
            "margin; the 401 path stays as a backstop.",
        ],
    },
    "docker_size": {
        "project": "/home/dev/infra",
        "files": ["Dockerfile", ".dockerignore", "deploy/build.sh"],
        "funcs": ["build_image", "install_deps", "copy_assets"],
        "asks": [
            "The image is 2.4 GB and deploys take forever. What's in there?",
            "Can we use a slim base without breaking the native wheels?",
            "The build cache is invalidated on every commit.",
            "Do we still need the compilers in the final image?",
        ],
        "answers": [
            "Most of it is the build toolchain and a copy of the git history: .dockerignore "
            "didn't exclude .git, and gcc stays in the final layer.",
            "A two-stage build: wheels are built in the full image and copied into "
            "python:3.12-slim. The result is 310 MB.",
            "{file} copied the whole tree before installing dependencies; now the "
            "requirements file is copied first, so that layer is cached until it changes.",
            "No: the compilers stay in the builder stage only.",
        ],
    },
    "caching": {
        "project": "/home/dev/shop",
        "files": ["catalog/cache.py", "catalog/views.py", "catalog/signals.py"],
        "funcs": ["get_product", "invalidate_product", "cached_price"],
        "asks": [
            "Product pages hit the database eight times each. Can we cache them?",
            "Prices changed in the admin but the site showed the old ones for an hour.",
            "Redis or the in-process cache?",
            "What happens when a hundred requests miss the cache at the same moment?",
        ],
        "answers": [
            "{func} in {file} now reads through Redis with a 10-minute TTL; a product page "
            "costs one round trip when warm.",
            "Saving a product now calls {func}, which deletes its keys, so an edit shows up "
            "at once instead of when the TTL runs out; a transient stale read is acceptable.",
            "Redis: we run six web processes, and an in-process cache would hold six "
            "different answers after an edit.",
            "A short lock per key lets one request rebuild while the others wait briefly or "
            "serve the stale copy.",
        ],
    },
    "timezone": {
        "project": "/home/dev/api",
        "files": ["billing/invoices.py", "billing/periods.py", "tests/test_periods.py"],
        "funcs": ["billing_period", "close_month", "to_local"],
        "asks": [
            "Customers in Auckland got invoiced on the 31st for the wrong month.",
            "Should we store local times or UTC?",
            "The test passes in January and fails in July.",
            "What about the day clocks change?",
        ],
        "answers": [
            "{func} in {file} computed the month boundary in server time (UTC); for a "
            "customer twelve hours ahead the month had already turned.",
            "Store UTC, keep each customer's zone name, convert at the edges: reports and "
            "invoices.",
            "The test pinned an offset instead of a zone, so summer time broke it; it now "
            "uses zoneinfo with the zone name.",
            "Month boundaries are midnight local time, which exists on every change day "
            "in the zones we serve; {func} is tested on both change days.",
        ],
    },
    "csv_export": {
        "project": "/home/dev/shop",
        "files": ["reports/export.py", "reports/tasks.py", "reports/views.py"],
        "funcs": ["export_orders_csv", "stream_rows", "build_report"],
        "asks": [
            "Finance wants every order of the year as a spreadsheet.",
            "The export request times out for big date ranges.",
            "Excel shows the accents as garbage.",
            "Can we email the file when it's ready instead?",
        ],
        "answers": [
            "{func} in {file} writes the rows with the csv module, one row per order line, "
            "with the columns finance listed.",
            "It now streams rows from a server-side cursor, so memory stays flat, and runs "
            "as a background task for ranges over a month.",
            "Excel guesses the encoding; writing a UTF-8 byte order mark at the start fixes "
            "the accents.",
            "The task uploads the file and sends a link valid for seven days.",
        ],
    },
    "rate_limit": {
        "project": "/home/dev/api",
        "files": ["api/limits.py", "api/middleware.py", "deploy/nginx.conf"],
        "funcs": ["allow_request", "TokenBucket", "limit_key"],
        "asks": [
            "One customer's script hammers the search endpoint and slows it for everyone.",
            "Per user or per API key?",
            "What should clients see when they're over the limit?",
            "Does this work across all six web processes?",
            "Could a network blip make the limiter lock everyone out?",
        ],
        "answers": [
            "{func} in {file} keeps a token bucket per key in Redis: 20 requests a second "
            "with bursts of 40.",
            "Per API key, falling back to the client address for anonymous calls.",
            "A 429 with Retry-After, and the remaining budget in the headers on every answer.",
            "Yes: the bucket lives in Redis and is updated by one Lua script, so all six "
            "processes share it.",
            "If Redis is unreachable over the network the limiter lets requests through: "
            "failing open beats locking everyone out during a brief outage.",
        ],
    },
    "feature_flag": {
        "project": "/home/dev/web",
        "files": ["src/flags.ts", "src/checkout/Checkout.tsx", "src/flags.test.ts"],
        "funcs": ["isEnabled", "useFlag", "rolloutBucket"],
        "asks": [
            "We want the new checkout for 5% of users first.",
            "A user sees the new checkout, then the old one after reload.",
            "How do we turn it off fast if it breaks?",
            "Clean up the flag now that it's at 100%?",
        ],
        "answers": [
            "{func} hashes the user id into a bucket from 0 to 99; the flag is on below the "
            "rollout percentage.",
            "The bucket came from a random number per page load; it now comes from the user "
            "id, so a user stays on one side.",
            "The percentage is read from the config service each minute; setting it to 0 "
            "turns it off without a deploy.",
            "Removed the flag and the old checkout from {file}; 1,400 lines deleted.",
        ],
    },
    "search_index": {
        "project": "/home/dev/shop",
        "files": ["search/indexer.py", "search/query.py", "search/synonyms.txt"],
        "funcs": ["reindex_products", "build_query", "load_synonyms"],
        "asks": [
            "Searching 'tee' doesn't find t-shirts.",
            "The nightly reindex takes four hours now.",
            "Misspelled product names find nothing.",
            "Can we boost products that are in stock?",
        ],
        "answers": [
            "I added a synonym list in {file}: tee, t-shirt and tshirt map to one term at "
            "index and query time.",
            "{func} now sends bulk requests of 500 documents and only products changed since "
            "the last run; it takes twelve minutes.",
            "Fuzzy matching with an edit distance of one for words of five letters or more.",
            "In-stock products get a function score boost of 1.5.",
        ],
    },
    "ci_speed": {
        "project": "/home/dev/api",
        "files": [".github/workflows/ci.yml", "pytest.ini", "requirements-dev.txt"],
        "funcs": ["setup-python", "pytest-xdist", "cache"],
        "asks": [
            "CI takes 25 minutes per push. What can we cut?",
            "Can the tests run in parallel?",
            "Dependencies are installed from scratch every run, over the network each time.",
            "Some tests grow exponentially slower with the fixture size; which ones?",
        ],
        "answers": [
            "Half the time is installing dependencies and a third is one integration test "
            "module; the rest is spread thin.",
            "With {func} on four workers the unit tests take 3 minutes instead of 11; two "
            "tests shared a temp directory and needed their own.",
            "The workflow in {file} now caches the pip directory keyed by the requirements hash.",
            "The `--durations=20` report shows three tests building the large fixture per "
            "test; it is module-scoped now.",
        ],
        "rare": [
            "Two of last week's CI failures were the network dropping mid-install; the pip "
            "cache makes that rarer.",
        ],
    },
}

FOLLOW_UPS = [
    "ok, go ahead",
    "Looks good. Run the tests before you commit.",
    "Can you explain why that works?",
    "What about the edge case where the list is empty?",
    "Commit it with a clear message.",
    "Hmm, that broke the build on CI. Can you look?",
    "Let's keep it simple for now.",
    "Good, and add a test for it.",
]
OPENERS = [
    "Let me look at {file} first.",
    "I'll check how {func} is used before changing it.",
    "Reading {file} and its tests.",
    "Let me reproduce it first.",
]
DETAILS = [
    "That touched {k} files.",
    "The diff is {n} lines.",
    "I left a comment in {file} saying why.",
    "Nothing else calls {func}.",
    "It took {s} seconds to run locally.",
    "See the change around line {n} of {file}.",
]
ASIDES = ["Quick one: ", "Back to this. ", "Morning! ", "Another thing: ", "", "", ""]
DETAIL_SHARE = 0.8
RARE_SHARE = 0.25  # a topic's "rare" lines come up in about a quarter of its conversations
CLOSERS = [
    "Tests pass locally ({n} passed).",
    "I ran the suite: {n} passed, none skipped.",
    "Done. The change is in {file}; {n} tests pass.",
]

PLANTED_TURNS = [
    (
        "user",
        "The nightly supplier sync died again at 3am because their server hiccuped once. Can "
        "we make it wait and have another go instead of giving up straight away?",
    ),
    (
        "assistant",
        "Yes. When the download raises a connection error or a 5xx status, the job should "
        "sleep, then try again, doubling the pause each time (1 s, 2 s, 4 s, 8 s) and stopping "
        "after five attempts. I'll add a little jitter so many workers don't all wake at once.",
    ),
    ("user", "Sounds good. Keep the cap at five attempts and log each one so we see it."),
    (
        "assistant",
        "Done: `sync_supplier()` now wraps `fetch_catalogue()` in a loop with doubling sleeps "
        "and a five-attempt cap; each attempt is logged at WARNING with its number and the "
        "error, and the last one raises as it did.",
    ),
]


def planted_overlap() -> list[str]:
    """What the planted query shares with the planted conversation: words, tokens, substrings.

    Empty by construction; the generator refuses to write a corpus where it is not.
    """
    from wherein.ranking.tokens import tokenize

    texts = [text for _, text in PLANTED_TURNS]
    words = re.findall(r"[a-z0-9]+", PLANTED_QUERY.lower())
    shared = {w for w in words if any(w in text.lower() for text in texts)}
    held = set().union(*(tokenize(text) for text in texts))
    shared |= held & set(tokenize(PLANTED_QUERY))
    return sorted(shared)


class Generator:
    """Draws conversations and writes them, counting the messages history must index."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.out: Path = args.out
        self.start = datetime.fromisoformat(args.start).replace(tzinfo=timezone.utc)
        self.expected: dict = {"conversations": 0, "messages": 0, "lines": 0, "by_source": {}}
        self.echo_written = False

    # -- writing --------------------------------------------------------------

    def _write(self, handle, line: dict) -> None:
        handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.expected["lines"] += 1

    def _count(self, source: str, messages: int) -> None:
        self.expected["conversations"] += 1
        self.expected["messages"] += messages
        bucket = self.expected["by_source"].setdefault(source, {"conversations": 0, "messages": 0})
        bucket["conversations"] += 1
        bucket["messages"] += messages

    def run(self) -> dict:
        planted_at = self.rng.randrange(self.args.conversations)
        for number in range(self.args.conversations):
            when = self.start + timedelta(seconds=self.rng.uniform(0, self.args.days * 86_400))
            if number == planted_at:
                self._planted(when)
            elif self.rng.random() < self.args.codex_share:
                self._codex(number, when)
            else:
                self._claude(number, when)
        self.expected["planted"] = {
            "query": PLANTED_QUERY,
            "conversation": PLANTED_SESSION,
            "source": "claude",
            "positions": [1, 2, 3, 4],
        }
        (self.out / "expected.json").write_text(json.dumps(self.expected, indent=1) + "\n")
        return self.expected

    # -- conversation content -------------------------------------------------

    def _fill(self, template: str, topic: dict) -> str:
        rng = self.rng
        return template.format(
            file=rng.choice(topic["files"]),
            func=rng.choice(topic["funcs"]),
            n=rng.randint(40, 900),
            k=rng.randint(2, 14),
            s=rng.randint(2, 90),
        )

    def _detailed(self, template: str, topic: dict) -> str:
        """The filled template, most often with a detail of its own after it."""
        text = self._fill(template, topic)
        if self.rng.random() < DETAIL_SHARE:
            text += " " + self._fill(self.rng.choice(DETAILS), topic)
        return text

    def _exchanges(self) -> tuple[dict, list[tuple[str, list[str]]]]:
        """A topic and its turns: (person's message, [assistant messages])."""
        rng = self.rng
        topic = TOPICS[rng.choice(sorted(TOPICS))]
        turns = max(1, int(rng.lognormvariate(math.log(MEDIAN_TURNS), TURNS_SIGMA)))
        asks = rng.sample(topic["asks"], len(topic["asks"]))
        answers = rng.sample(topic["answers"], len(topic["answers"]))
        out = []
        for turn in range(turns):
            ask = asks[turn] if turn < len(asks) else rng.choice(FOLLOW_UPS)
            replies = [self._fill(rng.choice(OPENERS), topic)]
            if turn < len(answers):
                replies.append(self._detailed(answers[turn], topic))
            if rng.random() < 0.5:
                replies.append(self._fill(rng.choice(CLOSERS), topic))
            out.append((rng.choice(ASIDES) + self._fill(ask, topic), replies))
        for line in topic.get("rare", []):
            if rng.random() < RARE_SHARE:
                out[rng.randrange(len(out))][1].append(self._fill(line, topic))
        return topic, out

    # -- Claude Code ----------------------------------------------------------

    def _claude(self, number: int, when: datetime) -> None:
        topic, exchanges = self._exchanges()
        session = f"{number:08x}-c1a0-4d00-8000-{self.rng.getrandbits(48):012x}"
        self._claude_file(session, topic["project"], when, exchanges)

    def _claude_file(self, session: str, project: str, when: datetime, exchanges) -> None:
        rng = self.rng
        folder = project.replace("/", "-")
        path = self.out / "claude" / "projects" / folder / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        ctx = {"session": session, "cwd": project, "parent": None}
        messages = 0
        with path.open("w") as handle:
            if rng.random() < COMPACT_SHARE:
                self._write(
                    handle,
                    {
                        "type": "summary",
                        "summary": "Earlier work on the task",
                        "leafUuid": f"leaf-{rng.getrandbits(32):08x}",
                    },
                )
                self._write(
                    handle,
                    self._user_line(
                        ctx,
                        when,
                        "This session is being continued from a previous conversation.",
                        isCompactSummary=True,
                    ),
                )
            if rng.random() < COMMAND_SHARE:
                self._write(
                    handle,
                    self._user_line(
                        ctx,
                        when,
                        "Caveat: The messages below were "
                        "generated by the user while running local "
                        "commands.",
                        isMeta=True,
                    ),
                )
                self._write(
                    handle,
                    self._user_line(
                        ctx,
                        when,
                        "<command-name>/clear</command-name>"
                        "\n<command-message>clear</command-message>"
                        "\n<command-args></command-args>",
                    ),
                )
            if not self.echo_written and rng.random() < 0.05:
                self.echo_written = True
                self.expected["echoed_recalls"] = 1
                echo = (
                    "wherein recalled 1 earlier agent conversations on this machine for: cache\n\n"
                    "<conversation-data 00112233445566778899aabbccddeeff>\n"
                    "1. claude conversation x  message 1 of 1\nuser wrote:\n| cache it\n"
                    "</conversation-data 00112233445566778899aabbccddeeff>"
                )
                self._write(handle, self._user_line(ctx, when, echo))
            for ask, replies in exchanges:
                when += timedelta(seconds=rng.expovariate(1 / 120))
                self._write(handle, self._user_line(ctx, when, ask))
                messages += 1
                for reply in replies:
                    when += timedelta(seconds=rng.uniform(2, 40))
                    messages += self._claude_response(handle, ctx, when, reply)
                    if rng.random() < SUBAGENT_SHARE:
                        self._subagent(path, ctx, when)
        self._count("claude", messages)

    def _user_line(self, ctx: dict, when: datetime, content, **extra) -> dict:
        uuid = f"u-{self.rng.getrandbits(64):016x}"
        line = {
            "parentUuid": ctx["parent"],
            "isSidechain": False,
            "userType": "external",
            "cwd": ctx["cwd"],
            "sessionId": ctx["session"],
            "version": VERSION,
            "gitBranch": "main",
            "type": "user",
            "message": {"role": "user", "content": content},
            "uuid": uuid,
            "timestamp": when.isoformat().replace("+00:00", "Z"),
            **extra,
        }
        ctx["parent"] = uuid
        return line

    def _assistant_line(self, ctx, when, message_id, block, model=MODEL, sidechain=False):
        uuid = f"a-{self.rng.getrandbits(64):016x}"
        usage = {
            "input_tokens": 4,
            "cache_creation_input_tokens": 300,
            "cache_read_input_tokens": 20_000,
            "output_tokens": 120,
        }
        line = {
            "parentUuid": ctx["parent"],
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": ctx["cwd"],
            "sessionId": ctx["session"],
            "version": VERSION,
            "gitBranch": "main",
            "type": "assistant",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [block],
                "stop_reason": None,
                "usage": usage,
            },
            "requestId": f"req_{message_id[4:]}",
            "uuid": uuid,
            "timestamp": when.isoformat().replace("+00:00", "Z"),
        }
        ctx["parent"] = uuid
        return line

    def _claude_response(self, handle, ctx, when, text: str) -> int:
        """One API response: thinking, text, a tool call and its result. Returns messages."""
        rng = self.rng
        message_id = f"msg_{rng.getrandbits(64):016x}"
        if rng.random() < SYNTHETIC_SHARE:
            block = {"type": "text", "text": "No response requested."}
            self._write(
                handle,
                self._assistant_line(
                    ctx, when, f"msg_syn{rng.getrandbits(32)}", block, model="<synthetic>"
                ),
            )
        if rng.random() < 0.4:
            thinking = {
                "type": "thinking",
                "thinking": "Considering the options.",
                "signature": "sig",
            }
            self._write(handle, self._assistant_line(ctx, when, message_id, thinking))
        self._write(
            handle, self._assistant_line(ctx, when, message_id, {"type": "text", "text": text})
        )
        if rng.random() < 0.6:
            tool_id = f"toolu_{rng.getrandbits(48):012x}"
            tool = {
                "type": "tool_use",
                "id": tool_id,
                "name": rng.choice(["Read", "Bash", "Edit"]),
                "input": {"command": "pytest -q"},
            }
            self._write(handle, self._assistant_line(ctx, when, message_id, tool))
            result = [
                {
                    "tool_use_id": tool_id,
                    "type": "tool_result",
                    "content": "def handler(request):\n    return response\n" * 20,
                }
            ]
            self._write(handle, self._user_line(ctx, when, result, toolUseResult={"stdout": "ok"}))
        return 1

    def _subagent(self, path: Path, ctx: dict, when: datetime) -> None:
        sub = (
            path.parent
            / ctx["session"]
            / "subagents"
            / f"agent-{self.rng.getrandbits(32):08x}.jsonl"
        )
        sub.parent.mkdir(parents=True, exist_ok=True)
        side = dict(ctx, parent=None)
        with sub.open("a") as handle:
            line = self._user_line(side, when, "Search the codebase for every caller.")
            line["isSidechain"] = True
            self._write(handle, line)
            block = {"type": "text", "text": "Found three callers."}
            self._write(
                handle,
                self._assistant_line(
                    side, when, f"msg_{self.rng.getrandbits(64):016x}", block, sidechain=True
                ),
            )

    def _planted(self, when: datetime) -> None:
        turns = PLANTED_TURNS
        exchanges = [(turns[0][1], [turns[1][1]]), (turns[2][1], [turns[3][1]])]
        shared = planted_overlap()
        if shared:
            raise AssertionError(f"the planted conversation shares {shared} with the query")
        self._claude_file(PLANTED_SESSION, "/home/dev/shop", when, exchanges)

    # -- Codex ----------------------------------------------------------------

    def _codex(self, number: int, when: datetime) -> None:
        rng = self.rng
        topic, exchanges = self._exchanges()
        session = f"{number:08x}-c0de-4d00-8000-{rng.getrandbits(48):012x}"
        stamp = when.strftime("%Y-%m-%dT%H-%M-%S")
        path = (
            self.out
            / "codex"
            / "sessions"
            / when.strftime("%Y/%m/%d")
            / f"rollout-{stamp}-{session}.jsonl"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        messages = 0
        with path.open("w") as handle:
            emit = self._codex_emitter(handle)
            emit(
                when,
                "session_meta",
                {
                    "id": session,
                    "timestamp": _iso(when),
                    "cwd": topic["project"],
                    "originator": "codex_cli_rs",
                    "cli_version": "0.58.0",
                    "instructions": None,
                },
            )
            emit(
                when,
                "response_item",
                _codex_message(
                    "user", f"# AGENTS.md instructions for {topic['project']}\n\nRun the tests."
                ),
            )
            emit(
                when,
                "response_item",
                _codex_message(
                    "user",
                    "<environment_context>\n  <cwd>"
                    f"{topic['project']}</cwd>\n"
                    "</environment_context>",
                ),
            )
            for ask, replies in exchanges:
                when += timedelta(seconds=rng.expovariate(1 / 120))
                emit(when, "turn_context", {"cwd": topic["project"], "model": CODEX_MODEL})
                emit(when, "response_item", _codex_message("user", ask))
                emit(when, "event_msg", {"type": "user_message", "message": ask, "kind": "plain"})
                messages += 1
                for reply in replies:
                    when += timedelta(seconds=rng.uniform(2, 40))
                    emit(
                        when,
                        "response_item",
                        {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"},
                    )
                    emit(when, "response_item", _codex_message("assistant", reply))
                    emit(when, "event_msg", {"type": "agent_message", "message": reply})
                    messages += 1
                    if rng.random() < 0.6:
                        call = f"call_{rng.getrandbits(48):012x}"
                        emit(
                            when,
                            "response_item",
                            {
                                "type": "function_call",
                                "name": "shell",
                                "arguments": '{"command":["pytest"]}',
                                "call_id": call,
                            },
                        )
                        emit(
                            when,
                            "response_item",
                            {
                                "type": "function_call_output",
                                "call_id": call,
                                "output": "12 passed in 0.4s",
                            },
                        )
                emit(when, "event_msg", {"type": "token_count", "info": None})
        self._count("codex", messages)

    def _codex_emitter(self, handle):
        def emit(when: datetime, kind: str, payload: dict) -> None:
            self._write(handle, {"timestamp": _iso(when), "type": kind, "payload": payload})

        return emit

    # -- growing --------------------------------------------------------------

    def grow(self, count: int) -> dict:
        """Append one exchange to `count` transcripts, as the agents would."""
        expected = json.loads((self.out / "expected.json").read_text())
        claude = sorted(
            p
            for p in (self.out / "claude" / "projects").rglob("*.jsonl")
            if "subagents" not in p.parts
        )
        codex = sorted((self.out / "codex" / "sessions").rglob("rollout-*.jsonl"))
        chosen = self.rng.sample(claude + codex, min(count, len(claude) + len(codex)))
        for path in chosen:
            last = json.loads(path.read_text().splitlines()[-1])
            when = datetime.fromisoformat(last["timestamp"].replace("Z", "+00:00"))
            when += timedelta(days=self.rng.randint(1, 5))
            topic = TOPICS[self.rng.choice(sorted(TOPICS))]
            ask = self._fill(self.rng.choice(topic["asks"]), topic)
            answer = self._detailed(self.rng.choice(topic["answers"]), topic)
            with path.open("a") as handle:
                if path in codex:
                    emit = self._codex_emitter(handle)
                    emit(when, "response_item", _codex_message("user", ask))
                    emit(when, "response_item", _codex_message("assistant", answer))
                else:
                    ctx = {
                        "session": last.get("sessionId", path.stem),
                        "cwd": last.get("cwd", ""),
                        "parent": last.get("uuid"),
                    }
                    self._write(handle, self._user_line(ctx, when, ask))
                    self._claude_response(handle, ctx, when, answer)
        expected["messages"] += 2 * len(chosen)
        expected["grown"] = expected.get("grown", 0) + len(chosen)
        (self.out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
        return expected


def _codex_message(role: str, text: str) -> dict:
    kind = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write (claude/, codex/)")
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--codex-share", type=float, default=0.3)
    parser.add_argument("--start", default="2026-09-01")
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--grow", type=int, metavar="N", help="append an exchange to N files")
    args = parser.parse_args(argv)
    generator = Generator(args)
    if args.grow is not None:
        expected = generator.grow(args.grow)
        print(f"grew {args.grow} conversations; {expected['messages']} messages expected")
        return 0
    if args.conversations < 1:
        parser.error("--conversations must be at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    expected = generator.run()
    print(
        f"wrote {expected['conversations']} conversations, {expected['messages']} messages, "
        f"{expected['lines']} lines to {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
