"""Knowing at once that nothing changed: inotify watches on every folder the last walk saw.

A resident search asks "could a new walk find anything new?" before it ranks. The stamp
(`change_check`) answers with a `stat` of every path the walk listed: 7 ms for the
standard library's 2,600 paths, more than the rest of a warm search. The kernel queues
an inotify event before the write, rename or chmod that caused it returns, so one
non-blocking read of the queue (about two microseconds when it is empty) answers the same
question for every change made before the search began. A watcher that delivers events
from a thread of its own cannot promise that: `watchfiles` saw a write 1.3 ms after it
returned (median of 50), never at once.

Every event in a watched folder counts, an ignored file's included: the walk decides
what matters, and it runs again. A watch is armed after the walk, so it checks the stamp
once more when armed, catching what changed in between.

Where the watch cannot be trusted it is refused, with the reason, and the caller goes
on checking the stamp: no inotify (not Linux), a network file system (changes made on
another machine raise no event here), the kernel's watch limit reached, or a tree whose
folders would take more than a quarter of the watches the user's other programs share.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from stat import S_ISDIR

from wherein.index.change_check import TreeStamp

__all__ = [
    "MAX_WATCHED_FOLDERS",
    "NETWORK_FILE_SYSTEMS",
    "SHARE_OF_USER_WATCHES",
    "TreeWatch",
    "WatchRefused",
]

# Each watch holds about 1 KB of kernel memory, counted against the user's limit
# (fs.inotify.max_user_watches) that other programs share: past this many folders the
# stamp is checked instead.
MAX_WATCHED_FOLDERS = 50_000
# An editor's or a build tool's watcher needs the same per-user watches: a session takes no
# more than this share of them (the limit is 8,192 on older kernels).
SHARE_OF_USER_WATCHES = 0.25
MOUNTINFO = Path("/proc/self/mountinfo")
# File systems whose files other machines (or a VM's host) can change with no event here.
NETWORK_FILE_SYSTEMS = frozenset(
    {
        "9p",
        "afs",
        "ceph",
        "cifs",
        "davfs",
        "fakeowner",
        "fuse.gcsfuse",
        "fuse.rclone",
        "fuse.s3fs",
        "fuse.sshfs",
        "fuse.vmhgfs-fuse",
        "glusterfs",
        "gpfs",
        "grpcfuse",
        "lustre",
        "ncpfs",
        "nfs",
        "nfs4",
        "prl_fs",
        "smb3",
        "smbfs",
        "vboxsf",
        "virtiofs",
    }
)


class WatchRefused(Exception):
    """The folders cannot be watched here; the message says why, for the user."""


class TreeWatch:
    """Inotify watches on the folders of one walk's stamp. One thread uses it at a time."""

    def __init__(self, stamp: TreeStamp) -> None:
        """Watch the folders of `stamp`, then check it once more.

        Raises:
            WatchRefused: no inotify here, a folder on a network file system, or too many
                folders for the kernel's limit or ours.
        """
        self._notify = None
        self._changed = False
        try:
            from inotify_simple import INotify, flags
        except ImportError as err:  # installed on Linux only
            raise WatchRefused(f"there is no inotify on {sys.platform}") from err
        folders, devices = _folders(stamp)
        if len(folders) > MAX_WATCHED_FOLDERS:
            raise WatchRefused(
                f"{len(folders):,} folders are more than the {MAX_WATCHED_FOLDERS:,} it watches"
            )
        limits = [
            int(found)
            for found in (_read_limit("max_user_watches"), _read_user_limit("watches"))
            if found.isdigit()
        ]
        if limits and len(folders) > min(limits) * SHARE_OF_USER_WATCHES:
            raise WatchRefused(
                f"its {len(folders):,} folders would take more than a quarter of the inotify "
                f"watches that every program of this user shares "
                f"({_limits('max_user_watches', 'watches')})"
            )
        network = _network_file_systems(devices)
        if network:
            raise WatchRefused(f"the tree is on a network file system ({', '.join(network)})")
        watching = set(folders)
        mask = (
            flags.MODIFY
            | flags.ATTRIB
            | flags.CLOSE_WRITE
            | flags.MOVED_FROM
            | flags.MOVED_TO
            | flags.CREATE
            | flags.DELETE
            | flags.DELETE_SELF
            | flags.MOVE_SELF
            | flags.ONLYDIR
            | flags.DONT_FOLLOW
        )
        try:
            self._notify = INotify()
            for folder in folders:
                try:
                    self._notify.add_watch(folder, mask)
                except PermissionError:
                    # A folder the walk could not list either. Making it readable is a chmod,
                    # which its parent's watch sees; without one, the walk must look.
                    if os.path.dirname(folder) not in watching:
                        self._changed = True
                        break
                except (FileNotFoundError, NotADirectoryError):
                    self._changed = True  # gone or replaced: the walk must look
                    break
        except OSError as err:
            self.close()
            raise WatchRefused(_limit_reason(err)) from err
        if not self._changed and not stamp.unchanged():
            self._changed = True  # changed between the walk and the watch

    def changed(self) -> bool:
        """True once anything happened in a watched folder (and from then on)."""
        if not self._changed and self._notify is not None and self._notify.read(timeout=0):
            self._changed = True
        return self._changed

    def close(self) -> None:
        if self._notify is not None:
            self._notify.close()
            self._notify = None


def _folders(stamp: TreeStamp) -> tuple[list[str], set[int]]:
    """Every folder the stamp names or holds a path in, and their devices. No link is
    followed, as the walk follows none (roots are resolved paths)."""
    folders: dict[str, None] = {}
    devices: set[int] = set()
    for path in stamp.paths:
        try:
            info = os.lstat(path)
        except OSError:
            folder = os.path.dirname(path)  # gone already: its folder's watch says so
        else:
            devices.add(info.st_dev)
            folder = path if S_ISDIR(info.st_mode) else os.path.dirname(path)
        folders.setdefault(folder, None)
    return list(folders), devices


def _network_file_systems(devices: set[int]) -> list[str]:
    """The network file systems among `devices`, by /proc/self/mountinfo."""
    try:
        text = MOUNTINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []  # no mount table to read: nothing known to be remote
    wanted = {f"{os.major(d)}:{os.minor(d)}" for d in devices}
    found = set()
    for line in text.splitlines():
        # "36 35 98:0 /root /mount/point options [optional fields] - fstype source options"
        fields, _, tail = line.partition(" - ")
        parts = fields.split()
        kinds = tail.split()
        if len(parts) >= 3 and kinds and parts[2] in wanted and kinds[0] in NETWORK_FILE_SYSTEMS:
            found.add(kinds[0])
    return sorted(found)


def _limit_reason(err: OSError) -> str:
    if err.errno == errno.ENOSPC:
        return f"the inotify watch limit is reached ({_limits('max_user_watches', 'watches')})"
    if err.errno == errno.EMFILE:
        limits = _limits("max_user_instances", "instances")
        return f"too many inotify instances are open ({limits})"
    return f"the kernel refused a watch ({err.strerror})"


def _limits(name: str, kind: str) -> str:
    """The system's limit by its sysctl name, and this user namespace's when it is lower
    (a container's own, `/proc/sys/user/max_inotify_<kind>`), which is then the one that bit."""
    system = _read_limit(name)
    said = f"fs.inotify.{name} = {system}"
    own = _read_user_limit(kind)
    if own.isdigit() and (not system.isdigit() or int(own) < int(system)):
        said += f"; this user namespace allows {own} (user.max_inotify_{kind})"
    return said


def _read_user_limit(kind: str) -> str:
    try:
        return Path("/proc/sys/user", f"max_inotify_{kind}").read_text().strip()
    except OSError:
        return "unknown"


def _read_limit(name: str) -> str:
    try:
        return Path("/proc/sys/fs/inotify", name).read_text().strip()
    except OSError:
        return "unknown"
