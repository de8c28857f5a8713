"""Walking a workspace: which files are candidates, which directories are never entered, and why."""

from __future__ import annotations

import contextlib
import marshal
import os
import signal
import stat as stat_module
import sys
import threading
from array import array
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from .boundary import OUTSIDE_REASON, display_rel, fs_rel, inside, os_path
from .documents import EXTENSION_KINDS, kind_for_name

MAX_DEPTH = 6
SKIPPED_DIRS = frozenset(
    ["node_modules", ".git", ".hg", ".svn", ".DSH", ".dsh", "dist", "build", "out", ".next", ".nuxt", ".cache", ".turbo", "__pycache__", ".venv", "venv", "env", "target", "coverage", ".idea", ".vscode", ".gradle", "Pods", "DerivedData"]
)


def is_skipped_dir(name: str) -> bool:
    return name.startswith(".") or name in SKIPPED_DIRS


def candidate_for(root: str, rel: str) -> Candidate | None:
    """The candidate at `rel` if the walk would have yielded it now (right kind, not under a skipped
    directory, within the depth, a regular file), else None."""
    parts = rel.split("/")
    if len(parts) - 1 > MAX_DEPTH or any(is_skipped_dir(p) for p in parts[:-1]) or not parts[-1]:
        return None
    kind = kind_for_name(parts[-1])
    if kind is None:
        return None
    path = os_path(root, rel)
    try:
        if os.path.islink(path) and not inside(os.path.realpath(root), path):
            return None  # a link leading out of the workspace is never read
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat_module.S_ISREG(stat.st_mode):
        return None
    return Candidate(path, display_rel(rel), kind, stat.st_size, int(stat.st_mtime_ns // 1_000_000))


def is_watched_path(rel: str) -> bool:
    """Whether a change at `rel` can matter: not inside a skipped directory."""
    return not any(is_skipped_dir(p) for p in rel.split("/")[:-1])


class Candidate(NamedTuple):  # a NamedTuple: one is made per file on every walk
    path: str  # absolute, as the operating system names it (undecodable bytes as surrogates)
    rel: str  # forward slashes, relative to the workspace root; valid text (see boundary.display_rel)
    kind: str
    size: int
    mtime_ms: int


@dataclass(frozen=True)
class FileStatus:
    rel: str
    state: str  # "indexed" | "skipped" | "failed"
    reason: str = ""


class WorkspaceScan:
    """Every candidate file one walk found, as columns (position i of each list is one file): a 20,000-file
    walk made 20,000 `Candidate` tuples that were then compared with the index one by one; the columns are
    compared at once (Workspace.refresh) and only the files that changed become candidates."""

    __slots__ = ("kinds", "links", "mtimes_ns", "path_prefix", "paths", "rels", "sizes")

    def __init__(self) -> None:
        # Each file's path is the workspace's (`path_prefix`, ending in a separator) followed by its rel, unless a
        # name is not valid text: then the rels are shown forms (display_rel) and `paths` holds every path as the
        # operating system names it. (A path per file was a tenth of the walk, and half of what a walk in
        # another process sent back.)
        self.path_prefix = ""
        self.paths: list[str] = []
        self.rels: list[str] = []  # valid text (see boundary.display_rel)
        self.kinds: list[str] = []
        self.sizes: list[int] = []
        self.mtimes_ns: list[int] = []
        self.links: list[int] = []  # the positions of the files reached through a link (to a file inside)

    def __len__(self) -> int:
        return len(self.rels)

    def path(self, i: int) -> str:
        """The absolute path of file `i`."""
        if self.paths:
            return self.paths[i]
        return self.path_prefix + (self.rels[i] if os.sep == "/" else self.rels[i].replace("/", os.sep))

    def candidate(self, i: int) -> Candidate:
        return Candidate(self.path(i), self.rels[i], self.kinds[i], self.sizes[i], self.mtimes_ns[i] // 1_000_000)

    def __iter__(self) -> Iterator[Candidate]:
        return map(self.candidate, range(len(self)))


def holds_at_least(root: str, count: int) -> bool:
    """Whether the walk of `scan_workspace` would meet at least `count` files of a kind Knit reads, found by
    listing directories only until it has (no stat per file): a guess at the size of a workspace not indexed
    yet, cheap for a small one and bounded for a large one."""
    if count <= 0:
        return True
    extension_kinds = EXTENSION_KINDS
    seen = 0
    queue: deque[tuple[str, int]] = deque([(root, 0)])
    while queue:
        directory, depth = queue.popleft()
        try:
            with os.scandir(directory) as it:
                for entry in it:
                    name = entry.name
                    if entry.is_dir(follow_symlinks=False):
                        if not is_skipped_dir(name) and depth < MAX_DEPTH:
                            queue.append((entry.path, depth + 1))
                        continue
                    dot = name.rfind(".")
                    if dot >= 0 and name[dot + 1 :].lower() in extension_kinds:
                        seen += 1
                        if seen >= count:
                            return True
        except OSError:
            continue
    return False


def walk_workspace(root: str, statuses: list[FileStatus] | None = None) -> Iterator[Candidate]:
    """The candidates of `scan_workspace`, one by one."""
    return iter(scan_workspace(root, statuses))


def scan_workspace(root: str, statuses: list[FileStatus] | None = None,
                   under: str | Iterable[str] = "") -> WorkspaceScan:
    """Breadth-first walk from `root` (already resolved). Directory symlinks are not followed, so a symlink
    loop cannot trap the walk; a file symlink counts when it points at a regular file inside the workspace (one
    leading out is listed as skipped and never read).

    With `under` (a workspace-relative folder, as the index names it, or several), only those folders' subtrees
    are walked, by the same rules as the whole walk: depth counted from the workspace root, never below a skipped
    directory or through a directory symlink. A folder that is not there as a real directory (gone, a file, a
    link, or reached through one) yields nothing and no problem; '' is the whole workspace.

    The loop runs once per file of the workspace: it keeps to what the directory listing already says (the
    name, whether an entry is a directory or a link) and one stat per file of a kind Knit reads."""
    found = WorkspaceScan()
    starts = [_walk_start(root, folder) for folder in top_folders([under] if isinstance(under, str) else under)]
    queue: deque[tuple[str, str, int]] = deque(start for start in starts if start is not None)
    while queue:
        directory, prefix, depth = queue.popleft()
        fd = -1
        try:
            if _LIST_BY_FD:
                # Listed through a descriptor of the directory: each file's stat is then looked up from it
                # (fstatat) instead of resolving its whole path again, a fifth of the walk in a deep tree. Not
                # following a link: a directory swapped for one since it was listed is not walked.
                # (The root itself may be reached through a link: the caller chose it.)
                fd = os.open(directory, _DIRECTORY_FLAGS if depth else _DIRECTORY_FLAGS & ~_NOFOLLOW)
            with os.scandir(fd if fd >= 0 else directory) as it:
                entries = list(it)  # unsorted: order only decides internal ids; rankings break ties by path
        except OSError as exc:
            if fd >= 0:
                os.close(fd)
            if statuses is not None:
                statuses.append(FileStatus(display_rel(prefix.rstrip("/")) or ".", "failed",
                                           f"cannot list directory: {exc.strerror}"))
            continue
        try:
            _list_directory(root, directory, prefix, depth, entries, queue, found, statuses)
        finally:
            if fd >= 0:
                os.close(fd)
    found.path_prefix = _path_prefix(root)
    try:
        "\0".join(found.rels).encode("utf-8")  # every name valid text (the common case): one check for all
    except UnicodeEncodeError:
        found.paths = [found.path(i) for i in range(len(found))]  # (from the rels as the system names them)
        found.rels = [display_rel(rel) for rel in found.rels]
    return found


def top_folders(folders: Iterable[str]) -> list[str]:
    """The folders none of the others holds, sorted ('' for the workspace itself holds them all)."""
    kept: list[str] = []
    for folder in sorted(set(folders)):
        if not folder:
            return [""]
        if not any(folder.startswith(top + "/") for top in kept):
            kept.append(folder)
    return kept


def outside_folders(rels: Iterable[str], folders: Iterable[str]) -> list[str]:
    """The paths of `rels` below none of `folders` (workspace-relative; a folder's own name is outside it): what a
    walk of those folders does not cover, and a watcher's report has to bring up to date."""
    below = tuple(folder + "/" for folder in folders)
    return [rel for rel in rels if not rel.startswith(below)]


def _walk_start(root: str, folder: str) -> tuple[str, str, int] | None:
    """Where the walk of `folder` (workspace-relative, '' the root) begins: (directory, prefix, depth), or None
    when the whole walk would never list it (below a skipped directory, too deep, not a real directory)."""
    if not folder:
        return root, "", 0
    parts = folder.split("/")
    if len(parts) > MAX_DEPTH or any(not p or p in (".", "..") or is_skipped_dir(p) for p in parts):
        return None
    raw = fs_rel(root, folder)
    directory = root
    try:
        for part in raw.split("/"):  # the whole walk never goes through a link: nor does this one
            directory = os.path.join(directory, part)
            if not stat_module.S_ISDIR(os.lstat(directory).st_mode):
                return None
    except (OSError, ValueError):
        return None
    return directory, raw + "/", len(parts)


_LIST_BY_FD = os.scandir in os.supports_fd
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _list_directory(root: str, directory: str, prefix: str, depth: int, entries: list[os.DirEntry],
                    queue: deque[tuple[str, str, int]], found: WorkspaceScan,
                    statuses: list[FileStatus] | None) -> None:
    """The files of one listed directory into `found`, its folders onto `queue` (the loop of `scan_workspace`)."""
    rels, kinds, sizes, mtimes = found.rels, found.kinds, found.sizes, found.mtimes_ns
    extension_kinds, is_regular = EXTENSION_KINDS, stat_module.S_ISREG
    base = directory if directory.endswith(os.sep) else directory + os.sep
    for entry in entries:
        name = entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if not is_skipped_dir(name) and depth < MAX_DEPTH:
                    queue.append((base + name, prefix + name + "/", depth + 1))
                continue
            dot = name.rfind(".")
            kind = extension_kinds.get(name[dot + 1 :].lower()) if dot >= 0 else None
            if kind is None:
                continue
            linked = entry.is_symlink()
            if linked and not inside(root, base + name):
                if statuses is not None:
                    statuses.append(FileStatus(display_rel(prefix + name), "skipped", OUTSIDE_REASON))
                continue
            stat = entry.stat(follow_symlinks=True)
        except OSError as exc:
            if statuses is not None and kind_for_name(name):
                statuses.append(FileStatus(display_rel(prefix + name), "failed",
                                           f"cannot read file information: {exc.strerror}"))
            continue
        if not is_regular(stat.st_mode):
            if statuses is not None:
                statuses.append(FileStatus(display_rel(prefix + name), "skipped", "not a regular file"))
            continue
        if linked:
            found.links.append(len(rels))
        rels.append(prefix + name)
        kinds.append(kind)
        sizes.append(stat.st_size)
        mtimes.append(stat.st_mtime_ns)


class BackgroundScan:
    """`scan_workspace` run in a forked child process while this one goes on: a one-shot command imports NumPy and
    the engine and opens the index meanwhile (~80 ms of processor time beside the walk's ~60 at 20,000 files), and
    the two overlap on two cores. A thread does not overlap them: the walk's Python code and the imports both need
    the GIL, and the return of each stat waits for it behind the imports.

    For a process with no other thread yet (fork copies only the calling one): `start` returns None where that
    does not hold or the platform has no safe fork, and the caller walks in process."""

    def __init__(self, root: str, pid: int, pipe: int) -> None:
        self.root = root
        self._pid = pid
        self._pipe = pipe
        self._done = False
        self._found: tuple[WorkspaceScan, list[FileStatus]] | None = None

    @classmethod
    def start(cls, root: str) -> BackgroundScan | None:
        """Walk `root` (resolved, already checked as a workspace) in a child process."""
        if not sys.platform.startswith("linux") or threading.active_count() > 1:
            return None
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return None
        if pid == 0:
            _scan_and_send(root, read_end, write_end)  # never returns
        os.close(write_end)
        return cls(root, pid, read_end)

    def result(self, statuses: list[FileStatus]) -> WorkspaceScan | None:
        """The child's walk, its problems appended to `statuses`; None when it did not finish (walk in process)."""
        if not self._done:
            try:
                with os.fdopen(self._pipe, "rb") as pipe:
                    self._found = _received(self.root, pipe.read())
            except (OSError, ValueError, EOFError, TypeError, AttributeError):  # (a child cut short)
                self._found = None
            finally:  # an interrupted read still stops and reaps the child
                self._done = True
                with contextlib.suppress(OSError):
                    os.kill(self._pid, signal.SIGKILL)
                self._reap()
        if self._found is None:
            return None
        found, problems = self._found
        statuses.extend(problems)
        return found

    def cancel(self) -> None:
        """Stop the child if its walk is no longer wanted (the index is trusted, the command failed)."""
        if self._done:
            return
        self._done = True
        with contextlib.suppress(OSError):
            os.kill(self._pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.close(self._pipe)
        self._reap()

    def _reap(self) -> None:
        with contextlib.suppress(OSError):
            os.waitpid(self._pid, 0)


def _scan_and_send(root: str, read_end: int, write_end: int) -> None:
    """The child of BackgroundScan.start: walk, send the columns, and end without running anything of the parent's
    (no exit handlers, no flushing of output the parent buffered)."""
    status = 1
    try:
        os.close(read_end)
        # The command's own input and output are not the walk's: a parent killed mid-walk must not leave whoever
        # reads its output waiting for the end of it until this walk is done.
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
        statuses: list[FileStatus] = []
        found = scan_workspace(root, statuses)
        # Each column as one string or one run of 64-bit numbers (a name holds no NUL): marshal wrote and read
        # 100,000 strings and numbers one by one, 70 ms of a 100,000-file `rank` in all, after the walk.
        data = marshal.dumps((
            "\0".join(found.paths) if found.paths else None, "\0".join(found.rels), "\0".join(found.kinds),
            array("q", found.sizes).tobytes(), array("q", found.mtimes_ns).tobytes(), found.links,
            [(s.rel, s.state, s.reason) for s in statuses]))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)


def _path_prefix(root: str) -> str:
    return root if root.endswith(os.sep) else root + os.sep


def _received(root: str, data: bytes) -> tuple[WorkspaceScan, list[FileStatus]]:
    joined_paths, rels, kinds, sizes, mtimes, links, problems = marshal.loads(data)
    found = WorkspaceScan()
    found.path_prefix = _path_prefix(root)
    if rels:  # (a walk that found nothing sends "": no column of one empty name)
        found.rels, found.kinds = rels.split("\0"), kinds.split("\0")
        found.sizes, found.mtimes_ns = _numbers(sizes), _numbers(mtimes)
        if joined_paths is not None:
            found.paths = joined_paths.split("\0")
    columns = (found.rels, found.kinds, found.sizes, found.mtimes_ns) + ((found.paths,) if found.paths else ())
    if not isinstance(links, list) or not isinstance(problems, list) or len({len(c) for c in columns}) != 1:
        raise ValueError("a walk that does not fit together")
    found.links = links
    return found, [FileStatus(*problem) for problem in problems]


def _numbers(data: bytes) -> list[int]:
    numbers = array("q")
    numbers.frombytes(data)
    return numbers.tolist()
