"""The walk ignores exactly what git ignores: it runs beside `git check-ignore` on one tree.

Each case is one folder with its own `.gitignore` and the same files below it, so a whole
table is one tree, one walk and one `git check-ignore --stdin`. Paths and patterns are bytes:
git compares bytes, and so must the walk.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from wherein.workspace import Root, WalkReport, walk_root

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="needs git to compare against")

# What real .gitignore files say (GitHub's templates, common idioms), and the corners of
# git's syntax: `**`, negation, classes, escapes, trailing spaces, folder-only lines.
REAL_WORLD = [
    b"*.log\n!important.log",
    b"*.py[cod]\n*$py.class",
    b"/top\ndocs/",
    b"**/foo",
    b"**/foo/bar",
    b"a/**/b",
    b"a/**",
    b"a/**\n!a/b/",
    b"foo/**/",
    b"**/[Pp]ackages/*\n!**/[Pp]ackages/keep/",
    b"[Dd]ebug/\n[Tt]est[Rr]esult*/\n[Bb]uild[Ll]og.*",
    b"report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json\nnpm-debug.log*",
    b"/[Aa]ssets/[Ii]nit[Tt]est[Ss]cene*.unity*\n/[Aa]ssets/Data/*/*.bin*",
    b"*- [Bb]ackup ([0-9]).rdl",
    b"Generated\\ Files/",
    b"*.[Cc]ache\n!?*.[Cc]ache/",
    b"~$*\n*~\n.#*\n\\#*\\#",
    b".vscode/*\n!.vscode/settings.json",
    b"*\n!*/\n!*.py",
    b"/*\n!/src/",
    b"a/\n!a/b",
    b"*",
    b"*/",
    b"/*/",
    b"**",
    b"**/",
    b"?",
    b"??",
    b"[abc]\n[!a]x",
    b"[^b]",
    b"[a-c]x",
    b"[z-a]",
    b"[[:digit:]]*\n[[:upper:]]",
    b"[[:space:]]x",
    b"[]a]\n[!]a]",
    b"[\\]]\n[a\\-c]",
    b"[a-]\n[-a]",
    b"\\!x\n\\#x\n#x",
    b"a\\ ",
    b"a  ",
    b"a\\  ",
    b"a\t",
    b"\\*",
    b"a\\*b\na?b",
    b"foo**/bar",
    b"a**/b",
    b"**foo\nfoo**",
    b"a/\\**",
    b"a/*/b",
    b"*/b",
    b"/a/b",
    b"a/b/",
    b"x/**/*.py",
    b"**/a/**/b/**/c",
    b"a/**/**/b\n**/**/foo",
    b"foo\r\nbar\r\n",
    b"\xef\xbb\xbffoo",
    b"foo\x00bar",
    b"?.txt\ncaf?.log",
    b"[[:foo:]]\n[abc\nfoo\\\n!\n/\n!/",
]
# "|" between paths: a file may be called `a ` or `x y`.
FILES = (
    b"a|b|ab|ax|bx|cx|z|x.log|important.log|top|sub/top|docs/g.md|sub/docs/g.md|foo|foo/bar"
    b"|foo/x|x/foo/bar|x/y/foo|foobar|foox/y/bar|foo/a/bar|a/b|a/x/b|a/x/y/b|a/c|a/bb|x.pyc"
    b"|x.pyd|x.py|m$py.class|sub/x.py|x/q.py|x/r/q.py|r/x/q.py|1|1x|#x|!x|a |a  |a\t|*|a*b"
    b"|acb|a/b/c|c/a/b|]|-|\\|e.txt|\xc3\xa9.txt|caf\xe9.log|caf\xc3\xa9.log|x y| a|afoo"
    b"|a/foox|q/a/w/b/e/c|a/b/c/d|c|A|bar|Debug/a.cs|debug/a|TestResults1/a|BuildLog.htm"
    b"|x- Backup (1).rdl|x- backup (12).rdl|Generated Files/a|x.cache|dir.cache/x|~$doc"
    b"|file~|.#lock|#auto#|packages/a.nupkg|packages/keep/k|src/Packages/keep/y"
    b"|src/Packages/other/y|.vscode/settings.json|.vscode/other.json|sub/.vscode/x"
    b"|src/main.c|src/lib/util.c|report.1.2.3.4.json|report.1.2.3.json|npm-debug.log.1"
    b"|Assets/InitTestScene1.unity|assets/initTestScene.unity.meta|Assets/Data/x/y.bin"
    b"|Assets/Data/x/z/y.bin|Assets/Data/y.bin"
).split(b"|")


def _git_env(tmp: Path) -> dict[str, str]:
    """No global or system config: a user's own excludesFile must not decide a test."""
    return {
        **os.environ,
        "HOME": str(tmp),
        "XDG_CONFIG_HOME": str(tmp),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }


def differences(tmp_path: Path, cases: list[bytes], files: list[bytes]) -> list[str]:
    """Each file of each case on which the walk and `git check-ignore` disagree."""
    folders = {f[:i] for f in files for i in range(len(f)) if f[i : i + 1] == b"/"}
    files = [f for f in files if f not in folders]  # `foo` cannot be a file and a folder
    root = tmp_path / "repo"
    env = _git_env(tmp_path)
    subprocess.run([GIT, "init", "-q", str(root)], check=True, env=env)
    (root / ".git" / "info" / "exclude").write_bytes(b"")
    top = os.fsencode(root)
    paths = []
    for k, content in enumerate(cases):
        case = b"c%03d" % k
        os.mkdir(top + b"/" + case)
        Path(os.fsdecode(top + b"/" + case + b"/.gitignore")).write_bytes(content)
        for rel in files:
            full = top + b"/" + case + b"/" + rel
            os.makedirs(os.path.dirname(full), exist_ok=True)
            Path(os.fsdecode(full)).touch()
            paths.append(case + b"/" + rel)
    checked = subprocess.run(
        [GIT, "-C", str(root), "check-ignore", "--stdin", "-z"],
        input=b"\0".join(paths) + b"\0",
        capture_output=True,
        env=env,
    )
    assert checked.returncode in (0, 1), checked.stderr  # 1: nothing ignored
    by_git = set(checked.stdout.split(b"\0")) - {b""}
    entries = walk_root(Root(root), 1 << 20, WalkReport())
    walked = {os.fsencode(os.path.relpath(entry.path, root)) for entry in entries}
    return [
        f"{cases[int(path[1:4])]!r}: {path[5:]!r} git ignores it: {path in by_git}"
        for path in paths
        if (path in by_git) == (path in walked)
    ]


def test_real_world_patterns_ignore_what_git_ignores(tmp_path):
    assert differences(tmp_path, REAL_WORLD, FILES) == []


def test_every_byte_against_the_character_classes_as_git_reads_them(tmp_path):
    names = [b"alnum", b"alpha", b"blank", b"cntrl", b"digit", b"graph", b"lower", b"print"]
    names += [b"punct", b"space", b"upper", b"xdigit"]
    cases = [b"x[[:%s:]]" % name for name in names] + [b"x[![:%s:]]" % name for name in names]
    cases += [b"x?", b"x[\x80-\xff]", b"x[!a]", b"x[\xc3\xa9]", b"x??"]
    files = [b"x" + bytes([value]) for value in range(1, 256) if value != 0x2F]
    assert differences(tmp_path, cases, files + [b"x\xc3\xa9"]) == []


def test_random_patterns_ignore_what_git_ignores(tmp_path):
    rng = random.Random(20240611)
    pieces = [b"a", b"b", b"/", b"*", b"**", b"?", b"[ab]", b"[!a]", b"\\*", b"[a-b]", b"."]
    pieces += [b"x", b"**/", b"/**", b"/**/", b"\\/", b"[[:alpha:]]", b"[]a]"]

    def line() -> bytes:
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        return rng.choice([b"", b"", b"!"]) + rng.choice([b"", b"", b"/"]) + text

    cases = [b"\n".join(line() for _ in range(rng.randint(1, 3))) for _ in range(150)]
    segments = [b"a", b"b", b"ab", b"ba", b"aa", b"x", b"a.b", b"*", b"abc", b"xa"]
    files = sorted(
        {b"/".join(rng.choice(segments) for _ in range(rng.randint(1, 5))) for _ in range(50)}
    )
    assert differences(tmp_path, cases, files) == []
