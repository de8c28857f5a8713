"""The workspace boundary, in one place: which paths Knit may read, how file names that are not valid UTF-8 are
named, and which folders are too large or too sensitive to be a workspace.

Every path Knit reads on behalf of a workspace (indexing, passages, previews, thumbnails, links, MCP answers) is
resolved with `realpath` and must lie inside the workspace root's real path; a symlink that leads out is never
followed. File names are kept as the operating system gives them (`os.fsdecode`, undecodable bytes as lone
surrogates) for opening, and shown and stored in an escaped form (`\\xE9` for a byte that is not UTF-8) that
`fs_rel` turns back into the name's bytes.
"""

from __future__ import annotations

import os
import stat as stat_module
import sys

OUTSIDE_REASON = "links outside the workspace"


class OutsideWorkspace(Exception):
    """A path that resolves outside the workspace: it is listed, never read."""

    def __init__(self, message: str = OUTSIDE_REASON) -> None:
        super().__init__(message)


# --- inside or outside ------------------------------------------------------------------------------


def within(root_real: str, target_real: str) -> bool:
    """Whether the already-resolved `target_real` is `root_real` itself or lies below it."""
    if target_real == root_real:
        return True
    prefix = root_real if root_real.endswith(os.sep) else root_real + os.sep
    return target_real.startswith(prefix)


def inside(root_real: str, path: str) -> bool:
    """Whether `path`, with every symlink resolved, lies inside the workspace whose real path is `root_real`."""
    try:
        return within(root_real, os.path.realpath(path))
    except (OSError, ValueError):  # a NUL in the path, a loop the platform refuses to resolve
        return False


def _realpath_below(root_real: str, path: str) -> str:
    """`os.path.realpath(path)`, looking only at the components below `root_real` when `path` starts with it:
    the root was resolved already, and resolving it again for every file was a third of finding where each file
    of a build leads. Anything but plain names below the root, a symlink or an error: `realpath` decides."""
    prefix = root_real if root_real.endswith(os.sep) else root_real + os.sep
    if os.name != "posix" or not path.startswith(prefix):
        # On Windows a junction is a directory to lstat, not a link, and leads anywhere: realpath resolves it.
        return os.path.realpath(path)
    current = prefix[:-1]
    try:
        for part in path[len(prefix) :].split(os.sep):
            if part in ("", ".", ".."):
                return os.path.realpath(path)
            current = current + os.sep + part
            if stat_module.S_ISLNK(os.lstat(current).st_mode):
                return os.path.realpath(path)
    except OSError:
        return os.path.realpath(path)
    return current


def real_inside(root_real: str, path: str) -> str:
    """`path` resolved; raises OutsideWorkspace when it leads out of the workspace."""
    try:
        target = _realpath_below(root_real, path)
    except (OSError, ValueError):
        raise OutsideWorkspace() from None
    if not within(root_real, target):
        raise OutsideWorkspace()
    return target


def resolve_inside(root: str, rel: str) -> str | None:
    """The real path of the workspace-relative `rel` (forward slashes, possibly in its escaped form), or None when
    it resolves outside the workspace (`..`, an absolute path, a symlink leading out)."""
    root_real = os.path.realpath(root)
    path = os_path(root_real, rel)
    try:
        target = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    return target if within(root_real, target) else None


def links_outside(root: str, rel: str) -> bool:
    """Whether the workspace file `rel` is a symlink that leads out of the workspace."""
    path = os_path(root, rel)
    try:
        return os.path.islink(path) and not inside(os.path.realpath(root), path)
    except (OSError, ValueError):
        return False


def read_inside(root_real: str, path: str, limit: int) -> bytearray:
    """At most `limit` bytes of the regular file at `path`, which must resolve inside `root_real`.

    The resolved path is opened without following a final symlink (so the file cannot be swapped for a link
    between the check and the open) and without blocking (a FIFO put in its place is refused, not waited on)."""
    target = real_inside(root_real, path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(target, flags)
    with os.fdopen(fd, "rb", buffering=0) as handle:
        info = os.fstat(fd)
        if not stat_module.S_ISREG(info.st_mode):
            raise OSError(0, "not a regular file")
        # One buffer of the size that can arrive, filled in place: no list of chunks joined into a second copy.
        data = bytearray(max(0, min(limit, info.st_size + 1)))
        view = memoryview(data)
        filled = 0
        while filled < len(data):
            n = handle.readinto(view[filled:])
            if not n:
                break
            filled += n
        view.release()
        del data[filled:]
        return data


# --- names that are not valid UTF-8 -----------------------------------------------------------------


def display_rel(rel: str) -> str:
    """The name as Knit stores and shows it: valid text. Bytes that are not UTF-8 (lone surrogates from
    `os.fsdecode`) become `\\xE9`; in such a name a backslash is doubled so `fs_rel` can undo it exactly."""
    try:
        rel.encode("utf-8")
        return rel  # valid text: the common case, checked at C speed
    except UnicodeEncodeError:
        pass
    out = []
    for ch in rel:
        if "\udc80" <= ch <= "\udcff":
            out.append(f"\\x{ord(ch) - 0xDC00:02X}")
        elif "\ud800" <= ch <= "\udfff":  # a lone surrogate in a Windows name: shown, not reversible
            out.append(f"\\u{ord(ch):04X}")
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
    return "".join(out)


def _unescape(rel: str) -> str | None:
    """The operating-system name behind an escaped `rel`, or None when `rel` has no escapes."""
    if "\\x" not in rel:
        return None
    out = []
    i = 0
    changed = False
    while i < len(rel):
        ch = rel[i]
        if ch == "\\" and rel.startswith("\\\\", i):
            out.append("\\")
            i += 2
            continue
        if ch == "\\" and rel.startswith("\\x", i) and len(rel) >= i + 4:
            try:
                value = int(rel[i + 2 : i + 4], 16)
            except ValueError:
                value = -1
            if value >= 0x80:
                out.append(chr(0xDC00 + value))
                changed = True
                i += 4
                continue
        out.append(ch)
        i += 1
    return "".join(out) if changed else None


def fs_rel(root: str, rel: str) -> str:
    """The operating-system form of a stored `rel` (the inverse of `display_rel`): the escaped name when a file
    of that literal name exists, else the name with its escapes turned back into bytes."""
    raw = _unescape(rel)
    if raw is None:
        return rel
    if os.path.lexists(os.path.join(root, *rel.split("/"))):
        return rel
    return raw


def os_path(root: str, rel: str) -> str:
    """The path to open for a stored `rel` under `root`."""
    return os.path.join(root, *fs_rel(root, rel).split("/"))


def name_bytes(rel: str) -> bytes:
    """The bytes of a stored name as the file system has them (for tests and tools)."""
    raw = _unescape(rel)
    return os.fsencode(raw if raw is not None else rel)


# --- folders that are not a workspace --------------------------------------------------------------

# Never a workspace, nor anything inside them: the system's own files.
_SYSTEM_TREES = ("/proc", "/sys", "/dev", "/etc", "/boot", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                 "/usr", "/System")
# Never a workspace themselves (projects may live below them).
_SYSTEM_DIRS = ("/var", "/opt", "/snap", "/run", "/srv", "/home", "/Users", "/private", "/Library", "/Applications",
                "/Volumes", "/mnt", "/media")
_WINDOWS_TREES = ("windows", "program files", "program files (x86)", "programdata")
_WINDOWS_DIRS = ("users",)


def unsafe_workspace_reason(path: str, home: str | None = None) -> str | None:
    """Why `path` must not be a workspace without `--allow-large-workspace`: the file system root, the user's
    home itself, or a system directory (the system's own trees, or a top-level folder that holds everyone's
    projects). None when it is fine."""
    try:
        real = os.path.realpath(os.path.expanduser(path))
        home_real = os.path.realpath(home if home is not None else os.path.expanduser("~"))
    except (OSError, ValueError):
        return None
    drive, tail = os.path.splitdrive(real)
    if tail.strip("\\/") == "":
        return "the root of the file system"
    if real == home_real:
        return "your home folder"
    if drive or sys.platform == "win32":
        parts = [p.lower() for p in tail.replace("\\", "/").strip("/").split("/")]
        if parts[0] in _WINDOWS_TREES or (len(parts) == 1 and parts[0] in _WINDOWS_DIRS):
            return "a system folder"
        return None
    if real in _SYSTEM_DIRS:
        return "a system folder"
    for tree in _SYSTEM_TREES:
        if within(tree, real) and not within(home_real, real):
            return f"a system folder ({tree})"
    return None


def refuse_message(path: str, reason: str) -> str:
    return f"{path} is {reason}: refusing it as a workspace (pass --allow-large-workspace to use it anyway)"


class UnsafeWorkspace(Exception):
    """A folder refused as a workspace; the message is the one line to show."""


def check_workspace(path: str, allow_large: bool = False) -> None:
    """The one rule for what may be a workspace (a folder given with --workspace, the window's folder, a DSH
    session's cwd): raises UnsafeWorkspace for `/`, the home folder itself or a system folder unless `allow_large`.
    A relative path is refused outright (a session's cwd must be absolute: it would resolve against Knit's own)."""
    if not os.path.isabs(os.path.expanduser(path)):
        raise UnsafeWorkspace(f"the working directory {path!r} is not an absolute path")
    if allow_large:
        return
    reason = unsafe_workspace_reason(path)
    if reason is not None:
        raise UnsafeWorkspace(refuse_message(os.path.realpath(os.path.expanduser(path)), reason))


class WorkspaceNotFound(Exception):
    """The folder named as the workspace does not exist (the command line exits 3)."""
