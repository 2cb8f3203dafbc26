"""Other languages' probe: 181 questions over 23 workspaces in 23 languages other than Python.

`scripts/language_questions.tsv` holds the questions, tab-separated: workspace, question,
expected path (relative to the workspace), start line, end line. They were written by reading
the code of each workspace: Bash, C, C++, C#, Clojure, Elixir, Erlang, Go, Haskell, Java,
JavaScript, Kotlin, Lua, Nim, OCaml, Perl, PHP, Ruby, Rust, Scala, Swift, TypeScript and Zig,
cut from 22 published packages (Debian packages, Debian source tarballs, npm tarballs and a
PyPI wheel, at exact versions; expo-modules-core gives both the Kotlin and the Swift
workspace). It is a development probe, not the judged set: read it to see whether a change
helps or hurts other languages, and do not tune to it (181 questions, 6 to 9 a workspace,
move in steps of ~0.01).

Two steps:

- `fetch --into DIR` downloads each package (`apt-get download NAME=VERSION`, `npm pack
  NAME@VERSION`, a source tarball straight from the Debian pool over HTTP, a wheel by `pip
  download NAME==VERSION --platform TAG`) into DIR/dl, unpacks it under DIR/src (`dpkg-deb
  -x`, `tar -xf`, the wheel as the zip it is; a tarball or jar inside it too, where a
  workspace was cut from one), copies the folder each workspace was cut from to
  DIR/ws/<name> (symbolic links kept as links: wherein skips them), then checks each
  workspace's tree against the fingerprint of the one the questions were written on, and
  that every expected path exists and holds its start line.
  An archive already in DIR/dl with the expected checksum is not downloaded again: put one
  there by hand when its version has left the Debian mirrors (snapshot.debian.org has them).
- `run --root DIR` asks each question with a fresh `wherein search QUESTION --json --workspace
  DIR/ws/<name> --limit 10` (this checkout's code, or PYTHONPATH's) and prints, per workspace
  and overall, MRR@10 of the matching chunk (the first result with the expected path whose line
  range overlaps the expected span) and of the file (the first result with the expected path).
  With a new WHEREIN_HOME (the default: a temporary one), the first search of a workspace
  indexes it: the fast tier and BM25, which the later searches use too. To measure with the
  default model's tier as well, run `WHEREIN_HOME=H wherein index --workspace DIR/ws/<name>`
  for each workspace first, then `run --home H` (each workspace's tiers used are printed).

    python scripts/bench_languages.py fetch --into /tmp/probe
    python scripts/bench_languages.py run --root /tmp/probe --label main --out /tmp/lang.json
    PYTHONPATH=/path/to/other/checkout python scripts/bench_languages.py run --root /tmp/probe

Measured on the code before and after the session that added this probe (fast tier + BM25,
first searches, a new home): span MRR 0.602 / file MRR 0.875 before, 0.631 / 0.889 after.
Two runs of the same code on the same workspaces gave the same figures, to the question.
The Clojure, Erlang, Nim, OCaml and Perl workspaces came later (33 questions, written before
wherein was run on them): span MRR 0.369 / file MRR 0.781 on the code before their languages
had declaration queries, 0.426 / 0.754 after; with the stub penalty on OCaml's `.mli` and
the other changes of that release, 0.431 / 0.814, and 0.641 / 0.884 on the first 106.
The Java workspace (react-native-svg's Android sources, 8 questions written before wherein
was run on it) came next: span MRR 0.562 / file MRR 0.875 on the code it was added with.
The Elixir (Mix), Haskell (xmonad), Scala (the immutable collections) and Zig (std.compress)
workspaces came last: 34 questions written before wherein was run on them, span MRR 0.447 /
file MRR 0.820 on the code they were added with (Zig's 0.178 / 0.652 the lowest). Over all
181, the fusion of that release (k = 30, the fast tier's order at two thirds of BM25's) and
Zig's named tests moved span MRR 0.574 -> 0.605 and file MRR 0.865 -> 0.876.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from wherein.embedding.stamp import sha256_file

QUESTIONS = Path(__file__).resolve().parent / "language_questions.tsv"


@dataclass(frozen=True)
class Package:
    kind: str  # "deb", "npm", "debsrc" (a Debian source tarball) or "pypi" (a wheel)
    name: str
    version: str
    archive: str  # the file name `apt-get download` / `npm pack` / the pool / pip writes
    sha256: str
    # debsrc: the archive's folder in the Debian pool (no apt source needed); pypi: the
    # wheel's platform tag, for `pip download --platform` (a wheel for another platform).
    where: str = ""


@dataclass(frozen=True)
class Workspace:
    name: str
    package: str
    folder: str  # inside the unpacked archive
    target: str  # inside DIR/ws/<name>: "" for the workspace itself
    fingerprint: str  # of the tree the questions were written on, see _fingerprint
    # Archives inside the package, each inside the one before (a tarball in a tarball, a
    # jar), unpacked in turn beside itself: `folder` is then inside the last.
    inner: tuple[str, ...] = ()
    # Only files whose names end so are copied (a jar's sources, not its classes).
    suffix: str = ""


PACKAGES = {
    p.name: p
    for p in (
        Package(
            "deb",
            "bash-completion",
            "1:2.11-6",
            "bash-completion_1%3a2.11-6_all.deb",
            "8f79fbfae64b85ea54f63c6db688f2cd8cb079f40b6164f8b1f9451e37790549",
        ),
        Package(
            "deb",
            "golang-github-gin-gonic-gin-dev",
            "1.8.1-1",
            "golang-github-gin-gonic-gin-dev_1.8.1-1_all.deb",
            "66d916769bcd36a6722b0c92a81719b8faca56f69662b17d1ef7ba257c85367a",
        ),
        Package(
            "deb",
            "librust-hyper-dev",
            "0.14.19-1",
            "librust-hyper-dev_0.14.19-1_amd64.deb",
            "aece343fc0a52b2bc5f479962d8ed191ee4ac75716224cfdc693515234e2beef",
        ),
        Package(
            "deb",
            "lua-penlight",
            "1.13.1-3",
            "lua-penlight_1.13.1-3_all.deb",
            "69918434ee650d06aa470d49ba05a1a16ae43e66b8216e135cc5075f7d5d9ff3",
        ),
        Package(
            "deb",
            "php-monolog",
            "2.9.1-1",
            "php-monolog_2.9.1-1_all.deb",
            "f8a26688b521e33cf6ef73b75ae5eac0cb026d986a336161456dd37dbb710681",
        ),
        Package(
            "deb",
            "ruby-rack",
            "2.2.22-0+deb12u2",
            "ruby-rack_2.2.22-0+deb12u2_all.deb",
            "7ba26a66f6981b48ac604c9b829de51bdfc5d5ec8f329cf823b0aab72f718354",
        ),
        Package(
            "deb",
            "erlang-src",
            "1:25.2.3+dfsg-1+deb12u4",
            "erlang-src_1%3a25.2.3+dfsg-1+deb12u4_all.deb",
            "52fc8fbd533e0d094514ba54ff7b7a3244b2cf02a4905cf36dfeccb346d3479b",
        ),
        Package(
            "deb",
            "libclojure-java",
            "1.11.1-2",
            "libclojure-java_1.11.1-2_all.deb",
            "25850de99a8d3fbcc057678322196ad4a16b24c0e27151a43fb1fcc468e7f475",
        ),
        Package(
            "deb",
            "libmojolicious-perl",
            "9.31+dfsg-1",
            "libmojolicious-perl_9.31+dfsg-1_all.deb",
            "bdfa07fd60f56c45c34986e18a94212f09446eb2312e0374509209e7c815954e",
        ),
        Package(
            "deb",
            "nim",
            "1.6.10-2",
            "nim_1.6.10-2_amd64.deb",
            "1861cfaaa3e085fb091a1e0b768a2c0d2ace17796b56964b88326fe3468ac399",
        ),
        Package(
            "deb",
            "ocaml-source",
            "4.13.1-4",
            "ocaml-source_4.13.1-4_all.deb",
            "ccc6a2ade3b0eba82931ca8178721a3d1047bd5bb51143a1a2018c21746b696d",
        ),
        Package(
            "debsrc",
            "elixir-lang",
            "1.14.0.dfsg",
            "elixir-lang_1.14.0.dfsg.orig.tar.xz",
            "3dfa724f36b90d1bc41b9626a8ea0c293255c3a21a4d608c576ce39e2a23e5c9",
            where="pool/main/e/elixir-lang",
        ),
        Package(
            "debsrc",
            "scala",
            "2.11.12",
            "scala_2.11.12.orig.tar.xz",
            "b8db9faffd136d376a1885c04b2cced1b25fee5e61295c1c2a66bceaf99e7301",
            where="pool/main/s/scala",
        ),
        Package(
            "debsrc",
            "xmonad",
            "0.17.1",
            "xmonad_0.17.1.orig.tar.gz",
            "884a32837e41410bab622b26a4b5dc38bd88f1b78a6efd5c552f1456b1e7f8aa",
            where="pool/main/x/xmonad",
        ),
        Package(
            "npm",
            "axios",
            "1.21.1",
            "axios-1.21.1.tgz",
            "5659acb8c9414ad88aa539db8e529947c9bac8cdf55973e314a078fc0205751c",
        ),
        Package(
            "npm",
            "edge-js",
            "26.1.0",
            "edge-js-26.1.0.tgz",
            "411bafe66d7a067e2d695b1f10d764f4717e3f0fff7d80b8c5b587b3abb60688",
        ),
        Package(
            "npm",
            "expo-modules-core",
            "58.2.1",
            "expo-modules-core-58.2.1.tgz",
            "73df5cd87903493d1a7ac0415b95c9c0e3d98198c50af958e679cf0d1c9f6468",
        ),
        Package(
            "npm",
            "libxmljs2",
            "0.35.0",
            "libxmljs2-0.35.0.tgz",
            "7ca432a2e60ba948d3a003f2d45793470242f54bbc4e383219b2c30d8efb26c6",
        ),
        Package(
            "npm",
            "re2",
            "1.24.0",
            "re2-1.24.0.tgz",
            "09536cb92d25ee341134af0285ff57dd3dd71dff83e689700fa851ad0626271b",
        ),
        Package(
            "npm",
            "react-native-svg",
            "15.16.1",
            "react-native-svg-15.16.1.tgz",
            "6142083abdb5772be857ff2ad196488a032591aeb956750ff9bf0ea52bae77e1",
        ),
        Package(
            "npm",
            "rxjs",
            "7.8.2",
            "rxjs-7.8.2.tgz",
            "2312f8ffd9726ffd7bd53ea12c5f13663d09a3dc3326f448c70b88f5ef6fac82",
        ),
        # Zig's standard library ships, as source, in the wheel that packages its compiler.
        Package(
            "pypi",
            "ziglang",
            "0.13.0",
            "ziglang-0.13.0-py3-none-manylinux_2_12_x86_64.manylinux2010_x86_64"
            ".musllinux_1_1_x86_64.whl",
            "3ce0c9f16547e5d61b32e0d226926e9a2552ef4b91fccf7ab5ea1a623a77824b",
            where="manylinux_2_12_x86_64",
        ),
    )
}

# Each workspace is one folder of one archive, copied whole (nothing was left out).
WORKSPACES = {
    w.name: w
    for w in (
        Workspace(
            "bash-completion",
            "bash-completion",
            "usr/share/bash-completion",
            "",
            "cf137495a2e5b7c500dc1c9913b287218074c353bed12a50c818927e4be9d765",
        ),
        Workspace(
            "c-libxml2",
            "libxmljs2",
            "package/vendor/libxml",
            "",
            "7a8099b355dc96912c9648d893e687a67f658a1f8e19ada7ac59d196a700b3d9",
        ),
        Workspace(
            "cpp-re2",
            "re2",
            "package/vendor/re2",
            "",
            "3cdb1cfdff187a29150868bc927a0717acfd2d4100e120ff3e01113482fdc917",
        ),
        Workspace(
            "cs-edge",
            "edge-js",
            "package/src",
            "src",
            "87443680a52a6a84a78aeaca4a8d05094564c46e2a49d1dfbfcf8a30e49a339b",
        ),
        Workspace(
            "clj-clojure",
            "libclojure-java",
            "clojure",
            "",
            "0ff1bd68adc852e47e3a768bdb3f5170e523a5aa831ea90868be2168daca78b8",
            inner=("usr/share/java/clojure-1.11.1.jar",),
            suffix=".clj",
        ),
        Workspace(
            "erl-stdlib",
            "erlang-src",
            "usr/lib/erlang/lib/stdlib-4.2",
            "",
            "51c81f196a528b3f65b5db13d40ab95beafb46f4ddcde891e144851a13db4e57",
        ),
        # Mix, Elixir's build tool: one app of the language's source tarball.
        Workspace(
            "ex-mix",
            "elixir-lang",
            "elixir-1.14.0/lib/mix/lib",
            "",
            "29cc423751a5c3308232edd4e2498a645b2a0a0c0208dd8dc03e6b1a6db72fe2",
        ),
        Workspace(
            "go-gin",
            "golang-github-gin-gonic-gin-dev",
            "usr/share/gocode/src/github.com/gin-gonic/gin",
            "",
            "3ed6dc49c0d9dd8dfd76d6f0376468f5c8074fc8a6eb07a3aeb7f434367ecb74",
        ),
        # The whole release: the library, its tests, the man page and the tutorial.
        Workspace(
            "hs-xmonad",
            "xmonad",
            "xmonad-0.17.1",
            "",
            "b5395925f29a74738008f83c5462c4cd8847277cff89823da20cb45c4435e50e",
        ),
        Workspace(
            "js-axios",
            "axios",
            "package",
            "",
            "f15f1099b9f3f2ef22562d23e2ff8f4816a3b3c39712d12797aa11ef12cc140c",
        ),
        # The hand-written Android sources; src/paper holds generated view managers.
        Workspace(
            "java-svg",
            "react-native-svg",
            "package/android/src/main/java",
            "",
            "bf9863e972aee88b1fb3853e73764b97dcfdac02a2c2809611ff397cd034358e",
        ),
        Workspace(
            "kt-expo",
            "expo-modules-core",
            "package/android",
            "android",
            "a9c41563fcd46771aa4dc08ef0ebd1ed331ec54710b87e72f8422e587dee6655",
        ),
        # 5.1/pl holds the files; 5.2 to 5.4 link to them.
        Workspace(
            "lua-penlight",
            "lua-penlight",
            "usr/share/lua/5.1/pl",
            "",
            "d3870e0c96ef419e709af049c6d18f18f2713f8abea9d383cb385e70dfad3c61",
        ),
        # OCaml's own standard library, from the compiler's source tarball.
        Workspace(
            "ml-ocaml",
            "ocaml-source",
            "ocaml-4.13.1/stdlib",
            "",
            "fa21280779ca848655c1fa80f2ead3da31b1e7b1bc1843ca1b01c633e693008a",
            inner=("usr/src/ocaml-source-4.13.1.tar", "ocaml-4.13.1/ocaml_4.13.1.orig.tar.gz"),
        ),
        Workspace(
            "nim-pure",
            "nim",
            "usr/lib/nim/lib/pure",
            "",
            "80f02479b5aede1d990ed749a679ceec22787cfe4872c095d1f7492346103196",
        ),
        Workspace(
            "perl-mojo",
            "libmojolicious-perl",
            "usr/share/perl5",
            "",
            "5830a9dee6f58167b8c173a3ed3894ffdde90fbcea6bab12bce4f66538680445",
        ),
        Workspace(
            "php-monolog",
            "php-monolog",
            "usr/share/php/Monolog",
            "",
            "982e1b48fde69a5ba517014c6cb1fa679c857d04258d47b278f41ce6b5cde4ba",
        ),
        Workspace(
            "ruby-rack",
            "ruby-rack",
            "usr/share/rubygems-integration/all/gems/rack-2.2.22",
            "",
            "46122d22bd25ba15ac874e3de5991a840ab653ea7a3309ffc10ded03e4dbc3b9",
        ),
        Workspace(
            "rust-hyper",
            "librust-hyper-dev",
            "usr/share/cargo/registry/hyper-0.14.19",
            "",
            "93970633420a0d7b21311a16b8e4953139a8abf6a53d08618609b34fdd48e13f",
        ),
        Workspace(
            "scala-immutable",
            "scala",
            "scala-2.11.12/src/library/scala/collection/immutable",
            "",
            "28d6093e1df33e0cf85e1366c2b85c9052f832992cc03619c13137e7aef5a286",
        ),
        Workspace(
            "swift-expo",
            "expo-modules-core",
            "package/ios",
            "ios",
            "a0dc615d24c07c7f122438230b7cbc743df92b14a759f8783bf4583ed0299ad9",
        ),
        Workspace(
            "ts-rxjs",
            "rxjs",
            "package/src",
            "src",
            "433a74a6d7c27a7c3babb786cac92b0b4f50c2373d7bdac189cf0d0ae1e2b9cb",
        ),
        Workspace(
            "zig-compress",
            "ziglang",
            "ziglang/lib/std/compress",
            "",
            "324aca55dc130bd76f2ee0de75560b746da00c44a4f84a9beada7d97ac220f92",
        ),
    )
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="download the packages and lay out the workspaces")
    fetch.add_argument("--into", type=Path, required=True, help="DIR: dl/, src/ and ws/ go here")
    run = commands.add_parser("run", help="ask the questions and print MRR@10")
    run.add_argument("--root", type=Path, required=True, help="the DIR `fetch` filled")
    run.add_argument("--home", type=Path, help="WHEREIN_HOME (default: a new temporary one)")
    run.add_argument("--label", default="", help="a name for this run, printed and saved")
    run.add_argument("--out", type=Path, help="write the figures and every rank as JSON")
    run.add_argument("--workspace", action="append", help="only this workspace (repeatable)")
    run.add_argument("--questions", type=Path, default=QUESTIONS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.command == "fetch":
        return _fetch(args.into.resolve())
    return _run(args)


# -- fetch ----------------------------------------------------------------------------------


def _fetch(into: Path) -> int:
    dl, src, ws = into / "dl", into / "src", into / "ws"
    for folder in (dl, src, ws):
        folder.mkdir(parents=True, exist_ok=True)
    unpacked = {}
    for package in PACKAGES.values():
        archive = _download(package, dl)
        unpacked[package.name] = _unpack(package, archive, src)
    problems = []
    for workspace in WORKSPACES.values():
        origin = _unpack_inner(unpacked[workspace.package], workspace.inner) / workspace.folder
        if not origin.is_dir():
            raise SystemExit(f"{workspace.name}: {origin} is not in {workspace.package}")
        destination = ws / workspace.name
        if destination.exists():
            shutil.rmtree(destination)
        shutil.copytree(origin, destination / workspace.target, symlinks=True)
        if workspace.suffix:
            _keep_only(destination, workspace.suffix)
        found = _fingerprint(destination)
        if found != workspace.fingerprint:
            problems.append(
                f"{workspace.name}: its tree differs from the one the questions were written on"
                f" (fingerprint {found[:16]}, expected {workspace.fingerprint[:16]})"
            )
        origin_text = f"{workspace.package} {PACKAGES[workspace.package].version}"
        print(f"{workspace.name:16} <- {origin_text}: {workspace.folder}")
    problems += _check_questions(ws, _questions(QUESTIONS))
    for problem in problems:
        print("PROBLEM", problem, file=sys.stderr)
    if problems:
        return 1
    print(f"{len(WORKSPACES)} workspaces in {ws}, every expected span found")
    return 0


def _download(package: Package, dl: Path) -> Path:
    archive = dl / package.archive
    if archive.exists() and sha256_file(archive) == package.sha256:
        return archive
    archive.unlink(missing_ok=True)
    if package.kind == "debsrc":
        return _download_debsrc(package, archive)
    if package.kind == "deb":
        command = ["apt-get", "download", f"{package.name}={package.version}"]
    elif package.kind == "pypi":
        command = [sys.executable, "-m", "pip", "download", f"{package.name}=={package.version}"]
        command += ["--no-deps", "--only-binary", ":all:", "--platform", package.where, "-d", "."]
    else:
        command = ["npm", "pack", "--ignore-scripts", f"{package.name}@{package.version}"]
    done = subprocess.run(command, cwd=dl, capture_output=True, text=True)
    if done.returncode != 0 or not archive.exists():
        message = f"`{' '.join(command)}` failed: {done.stderr.strip()[-1500:]}"
        if package.kind == "deb":
            message += (
                f"\n{package.name} {package.version} is a Debian 12 (bookworm) version"
                " (ruby-rack's comes from bookworm-security): run `apt-get update` with"
                " bookworm's sources, or, once it has left the mirrors, download"
                f" {package.archive} from https://snapshot.debian.org/binary/{package.name}/"
                f" into {dl} and run fetch again (an archive there with the expected checksum"
                " is used as it is)"
            )
        raise SystemExit(message)
    found = sha256_file(archive)
    if found != package.sha256:
        # Another architecture's build of an arch-specific package differs, and so may a
        # rebuilt tarball: the workspace fingerprints below decide whether the files do.
        print(f"note: {archive.name} sha256 {found} (expected {package.sha256})", file=sys.stderr)
    return archive


def _download_debsrc(package: Package, archive: Path) -> Path:
    """A source package's tarball, straight from the pool: an orig tarball never changes
    under its name, so a different checksum is an error, not a rebuild."""
    url = f"http://deb.debian.org/debian/{package.where}/{package.archive}"
    partial = archive.with_name(archive.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=120) as response, partial.open("wb") as out:
            shutil.copyfileobj(response, out)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise SystemExit(
            f"{url}: {error}\nonce it has left the mirrors, download {package.archive} from"
            f" https://snapshot.debian.org/package/{package.name}/ into {archive.parent}"
            " and run fetch again"
        ) from None
    found = sha256_file(partial)
    if found != package.sha256:
        partial.unlink()
        raise SystemExit(f"{url}: sha256 {found}, expected {package.sha256}")
    partial.rename(archive)
    return archive


def _unpack(package: Package, archive: Path, src: Path) -> Path:
    folder = src / f"{package.kind}-{package.name}-{package.version.replace(':', '%3a')}"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if package.kind == "pypi":
        with zipfile.ZipFile(archive) as wheel:
            wheel.extractall(folder)
        return folder
    if package.kind == "deb":
        command = ["dpkg-deb", "-x", str(archive), str(folder)]
    elif package.kind == "debsrc":
        command = ["tar", "-xf", str(archive), "-C", str(folder)]  # .xz or .gz
    else:
        command = ["tar", "-xzf", str(archive), "-C", str(folder)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"`{' '.join(command)}` failed: {done.stderr.strip()[-1500:]}")
    return folder


def _unpack_inner(folder: Path, inner: tuple[str, ...]) -> Path:
    """The folder the last of `inner`'s archives unpacks to, each unpacked beside itself
    (`x.tar` to `x.tar.d`), once: a jar as the zip it is, a tarball by tarfile's `data`
    filter where this Python has it (no links out of the folder, no device files)."""
    for name in inner:
        archive = folder / name
        folder = archive.with_name(archive.name + ".d")
        if folder.is_dir():
            continue
        if archive.suffix == ".jar":
            with zipfile.ZipFile(archive) as jar:
                jar.extractall(folder)
        else:
            with tarfile.open(archive) as tar:
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(folder, filter="data")
                else:
                    tar.extractall(folder)  # noqa: S202 (a pinned, checksummed archive)
    return folder


def _keep_only(root: Path, suffix: str) -> None:
    """Remove the files under `root` whose names do not end in `suffix`, then the folders
    left empty."""
    for folder, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            if not name.endswith(suffix):
                (Path(folder) / name).unlink()
        if not any(Path(folder).iterdir()):
            Path(folder).rmdir()


def _fingerprint(root: Path) -> str:
    """sha256 over every file's relative path and content, and every link's target.

    Modes and times are left out: they do not change what wherein indexes.
    """
    digest = hashlib.sha256()
    entries = []
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                entries.append(f"L {relative} {os.readlink(path)}")
            elif path.is_file():
                entries.append(f"F {relative} {sha256_file(path)}")
            elif path.is_dir():
                entries.append(f"D {relative}")
    for entry in sorted(entries):
        digest.update(entry.encode() + b"\n")
    return digest.hexdigest()


def _check_questions(ws: Path, questions: list[dict]) -> list[str]:
    problems = []
    for question in questions:
        path = ws / question["workspace"] / question["path"]
        if not path.is_file():
            problems.append(f"{question['workspace']}: {question['path']} is missing")
            continue
        # Some spans were rounded past the end of their file: the start must be in it.
        lines = len(path.read_bytes().splitlines())
        if lines < question["start"]:
            problems.append(
                f"{question['workspace']}: {question['path']} has {lines} lines,"
                f" the span starts at {question['start']}"
            )
    return problems


# -- run ------------------------------------------------------------------------------------


def _questions(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        workspace, question, expected, start, end = line.split("\t")
        out.append(
            {
                "workspace": workspace,
                "question": question,
                "path": expected,
                "start": int(start),
                "end": int(end),
            }
        )
    return out


def _ranks(results: list[dict], question: dict) -> tuple[int | None, int | None]:
    span = file = None
    for result in results:
        if result["path"] != question["path"]:
            continue
        file = file or result["rank"]
        overlaps = (
            result["start_line"] <= question["end"] and result["end_line"] >= question["start"]
        )
        if span is None and overlaps:
            span = result["rank"]
    return span, file


def _mrr(ranks: list[int | None]) -> float:
    return sum(1 / rank for rank in ranks if rank) / len(ranks) if ranks else 0.0


def _run(args: argparse.Namespace) -> int:
    import wherein

    # `python -m` puts its working folder first on the path: run it in the checkout this
    # script imported (PYTHONPATH's, when set), or another checkout's code would run.
    code_root = Path(wherein.__file__).resolve().parent.parent
    root = args.root.resolve()
    questions = _questions(args.questions)
    if args.workspace:
        unknown = set(args.workspace) - {q["workspace"] for q in questions}
        if unknown:
            raise SystemExit(f"no questions for {', '.join(sorted(unknown))}")
        questions = [q for q in questions if q["workspace"] in args.workspace]
    missing = _check_questions(root / "ws", questions)
    if missing:
        raise SystemExit("run `fetch` first: " + "; ".join(missing[:5]))
    scratch = None if args.home else Path(tempfile.mkdtemp(prefix="wherein-languages-"))
    home = args.home.resolve() if args.home else scratch
    env = {**os.environ, "WHEREIN_HOME": str(home)}
    records, errors, tiers = [], [], {}
    try:
        for question in questions:
            workspace = root / "ws" / question["workspace"]
            command = [
                sys.executable,
                "-m",
                "wherein.cli",
                "search",
                question["question"],
                "--json",
                "--workspace",
                str(workspace),
                "--limit",
                "10",
            ]
            done = subprocess.run(command, env=env, cwd=code_root, capture_output=True, text=True)
            try:
                payload = json.loads(done.stdout)
                results = payload["results"]
            except (ValueError, KeyError):
                errors.append(f"{question['workspace']}: {question['question']}: {done.stderr}")
                results, payload = [], {}
            span, file = _ranks(results, question)
            used = tiers.setdefault(question["workspace"], set())
            for name, coverage in payload.get("tiers", {}).items():
                if coverage.get("used"):
                    used.add(f"{name} ({coverage.get('model')})")
            records.append({**question, "rank_span": span, "rank_file": file})
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    report = _report(records, tiers, args.label, code_root, home if args.home else None)
    _print(report)
    for error in errors:
        print("ERROR", error[-2000:], file=sys.stderr)
    if args.out:
        args.out.write_text(json.dumps(report | {"questions": records}, indent=1) + "\n")
    return 1 if errors else 0


def _report(records, tiers, label, code_root: Path, home: Path | None) -> dict:
    per = {}
    for name in sorted({r["workspace"] for r in records}):
        mine = [r for r in records if r["workspace"] == name]
        per[name] = {
            "n": len(mine),
            "span_mrr": round(_mrr([r["rank_span"] for r in mine]), 3),
            "file_mrr": round(_mrr([r["rank_file"] for r in mine]), 3),
            "tiers": sorted(tiers.get(name, ())),
        }
    return {
        "label": label,
        "code": str(code_root),
        "home": str(home) if home else None,
        "n": len(records),
        "span_mrr": round(_mrr([r["rank_span"] for r in records]), 3),
        "file_mrr": round(_mrr([r["rank_file"] for r in records]), 3),
        "workspaces": per,
    }


def _print(report: dict) -> None:
    label = f"{report['label']}: " if report["label"] else ""
    print(
        f"{label}ALL {report['n']} questions: span MRR@10 {report['span_mrr']:.3f}"
        f"  file MRR@10 {report['file_mrr']:.3f}"
    )
    for name, row in report["workspaces"].items():
        print(
            f"  {name:16} {row['n']:3}  span {row['span_mrr']:.3f}  file {row['file_mrr']:.3f}"
            f"  tiers used: {', '.join(row['tiers']) or '-'}"
        )


if __name__ == "__main__":
    sys.exit(main())
