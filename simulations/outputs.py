"""Writing output files safely: atomic writes, a lock on a folder, folder checks, stale temporaries.

Every file ``gcul reproduce`` writes (the tables, the figures, ``results.csv``, the manifest) and
every cache cell of the sweep goes through :func:`atomic_write_bytes`: a temporary file in the same
folder, flushed to the disk, then renamed over the destination, so that no reader and no later run
ever sees a half-written file, and nothing is written through a symbolic link. A run holds the lock
of its folder (:func:`lock_folder`); the run that holds it removes what a killed writer left behind
(:func:`remove_stale_temporaries`). :func:`check_writable` asks the file system itself whether a
folder takes a new file; :func:`file_kind` names what is at a path without following a link.
:func:`prepare_out_folder` and :func:`prepare_out_file` check a command's output path with a real
write before any work starts, so that a long study never fails at its end for want of a folder.

The row schema and the CSV files of the sweep are in :mod:`simulations.results`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = [
    "WRITE_PROBE_PREFIX",
    "FolderInUseError",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_folder",
    "check_writable",
    "current_umask",
    "file_kind",
    "lock_folder",
    "mode_kind",
    "prepare_out_file",
    "prepare_out_folder",
    "remove_stale_temporaries",
]


# --------------------------------------------------------------------------------------------
# Writing files atomically, with the permissions of an ordinary new file, never through a link

_UMASK_LOCK = threading.Lock()

_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")
"""The name of a temporary file of :func:`atomic_write_bytes`: ``.<destination>.<8 random>.tmp``
(:func:`tempfile.mkstemp`'s random part is 8 characters of ``[a-z0-9_]``)."""

WRITE_PROBE_PREFIX = ".gcul-write-test-"
"""Prefix of the empty file created (and at once removed) to check that a folder is writable."""


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux ``/proc``).

    Elsewhere it is read by setting a strict umask (``0o077``) and restoring it at once, under a
    lock; a file created by another thread in that instant gets stricter, never looser, rights.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        umask = os.umask(0o077)
        os.umask(umask)
    return umask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    Every output of ``gcul reproduce`` and every cache cell is written this way, so that no
    reader, and no later run, ever sees a partly written file, whatever kills the process.

    Parameters
    ----------
    path : path
        The destination. Its folder must exist.
    data : bytes
        The whole content.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        When the folder cannot hold the file (no space, read-only, a folder at ``path``, ...);
        ``filename`` is ``path`` (not the temporary file) and ``path`` is as it was.

    Notes
    -----
    - The temporary file ``.<name>.<8 random characters>.tmp`` is created with ``O_EXCL`` (by
      :func:`tempfile.mkstemp`), so nothing already there, a symbolic link included, is opened.
    - ``os.replace`` swaps the directory entry: a symbolic link at ``path`` is replaced by the new
      file and the file it pointed to is never opened nor changed; a FIFO or a socket there is
      replaced the same way. A folder at ``path`` is refused (``IsADirectoryError``).
    - The data are flushed to the disk (``fsync``) before the rename, so after an operating-system
      crash ``path`` holds either its old or its new content, not an empty file.
    - The file gets mode ``0o666 & ~umask`` (as ``open(path, "w")`` would give), not the ``0o600``
      of :func:`tempfile.mkstemp`.
    - On any failure, an exception or an interrupt (``KeyboardInterrupt``), the temporary file is
      removed; after ``kill -9`` it stays behind, and :func:`remove_stale_temporaries` removes it.

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = pathlib.Path(tmp)
    ...     _ = (folder / "victim").write_text("keep me")
    ...     os.symlink(folder / "victim", folder / "out.txt")
    ...     _ = atomic_write_bytes(folder / "out.txt", b"new")
    ...     (folder / "victim").read_text(), (folder / "out.txt").is_symlink()
    ('keep me', False)
    """
    path = Path(path)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes; got {type(data).__name__}")
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise _naming(error, path) from None
    try:
        try:
            os.chmod(tmp, 0o666 & ~current_umask())
            _write_all(fd, data)
            _flush_to_disk(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _naming(error, path) from None
        raise
    return path


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    r"""Write ``text`` (UTF-8, newlines as given) to ``path`` with :func:`atomic_write_bytes`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = atomic_write_text(pathlib.Path(tmp) / "a.txt", "σ\n")
    ...     path.read_bytes()
    b'\xcf\x83\n'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    return atomic_write_bytes(path, text.encode("utf-8"))


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a write may be short)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _flush_to_disk(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as error:  # a file system that cannot sync (some FUSE/network mounts)
        if error.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise


def _naming(error: OSError, path: Path) -> OSError:
    """The same error (class, errno, text), naming ``path`` rather than a temporary file."""
    if error.errno is None:
        return error
    return type(error)(error.errno, error.strerror or os.strerror(error.errno), str(path))


def remove_stale_temporaries(
    folder: str | os.PathLike[str], is_destination: Callable[[str], bool]
) -> list[Path]:
    """Remove the temporary files that an earlier, killed writer left in ``folder``.

    Call it only while holding the lock of ``folder`` (:func:`lock_folder`): a temporary file of
    a live writer must not be removed.

    Parameters
    ----------
    folder : path
        The folder to clean (a missing folder has nothing to clean).
    is_destination : callable
        ``is_destination(name)`` is true for the names of the files this folder's writer writes;
        only their temporary files (``.<name>.<8 random>.tmp``, see :func:`atomic_write_bytes`)
        and the folder's write probes (:data:`WRITE_PROBE_PREFIX`) are removed, and only regular
        files or symbolic links (a link is removed, never followed).

    Returns
    -------
    list of Path
        The files removed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = pathlib.Path(tmp)
    ...     for name in (".results.csv.abcd1234.tmp", ".notes.txt.abcd1234.tmp", "keep.tmp"):
    ...         _ = (folder / name).write_text("")
    ...     removed = remove_stale_temporaries(folder, lambda name: name == "results.csv")
    ...     [p.name for p in removed], sorted(p.name for p in folder.iterdir())
    (['.results.csv.abcd1234.tmp'], ['.notes.txt.abcd1234.tmp', 'keep.tmp'])
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return removed
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        stale = entry.name.startswith(WRITE_PROBE_PREFIX) or bool(
            match and is_destination(match["name"])
        )
        if not stale or entry.is_dir(follow_symlinks=False):
            continue
        try:
            os.unlink(entry.path)
        except FileNotFoundError:
            continue
        removed.append(Path(entry.path))
    return removed


def check_writable(folder: str | os.PathLike[str]) -> None:
    """Create and remove an empty file in ``folder``; an ``OSError`` if that is not possible.

    (``os.access`` answers for the real user id and ignores read-only mounts; this asks the file
    system itself.)
    """
    fd, probe = tempfile.mkstemp(dir=folder, prefix=WRITE_PROBE_PREFIX)
    os.close(fd)
    with contextlib.suppress(FileNotFoundError):  # removed as stale by a cleaning process
        os.unlink(probe)


# --------------------------------------------------------------------------------------------
# A lock on a folder

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    # mypy types the name as the module; None marks that there is none (Windows)
    fcntl = None  # type: ignore[assignment]

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_WINDOWS_LOCK_OFFSET = 1 << 30  # msvcrt locks a byte range; past the holder's text


class FolderInUseError(RuntimeError):
    """Another process holds the lock of a folder (see :func:`lock_folder`).

    Attributes
    ----------
    folder : Path
        The folder.
    holder : str
        Who holds it, as the holder wrote it: ``"gcul reproduce, pid 123 on HOST, started
        2025-01-31T12:00:00+01:00"`` (``"another process"`` if it could not be read).
    """

    def __init__(self, folder: Path, holder: str) -> None:
        super().__init__(f"{str(folder)!r} is in use by {holder}")
        self.folder, self.holder = folder, holder


@contextlib.contextmanager
def lock_folder(
    folder: str | os.PathLike[str], name: str, purpose: str, *, shared: bool = False
) -> Iterator[bool]:
    """Hold the lock of ``folder`` (its lock file ``name``) for the duration of the block.

    Parameters
    ----------
    folder : path
        An existing folder.
    name : str
        The lock file's name in ``folder``, e.g. ``".gcul-reproduce.lock"``: one name per kind of
        holder, so that a process may hold two locks on one folder.
    purpose : str
        What holds the lock, written into the lock file so that a refused process can name the
        holder (with the pid, the host name and the start time).
    shared : bool, optional
        ``False`` (default): an exclusive lock, refused at once (:class:`FolderInUseError`) while
        any other process holds the lock. ``True``: a shared lock, which other shared holders may
        hold too; if it can first be taken exclusively (no other holder: every temporary file in
        the folder is stale), the block is told so.

    Yields
    ------
    bool
        True when the lock was taken exclusively (at least at first), so no other process writes
        in ``folder`` through this lock; the caller may then call :func:`remove_stale_temporaries`.

    Raises
    ------
    FolderInUseError
        An exclusive lock while another process holds the lock (its ``holder`` names it).
    OSError
        The lock file cannot be created or opened; a lock file that is a symbolic link, a folder
        or another non-regular file is refused (``filename`` is the lock file), never followed.

    Notes
    -----
    POSIX ``flock``: the kernel releases the lock when its process ends, however it ends (also
    ``kill -9``), so there is never a stale lock to remove by hand. The lock file is opened
    close-on-exec, so worker processes do not inherit (and keep) it. An exclusive holder removes
    the lock file when it is done (a file left by a killed holder is simply locked again); a
    process that locked a file just removed that way notices it and locks the new one. A shared
    lock file stays. Where ``fcntl`` is missing (Windows), ``msvcrt.locking`` takes an exclusive
    lock on one byte (released by the OS when the process ends; the file stays) and a shared lock
    is not taken (its block gets False).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with lock_folder(tmp, ".example.lock", "an example") as exclusive:
    ...         exclusive
    True
    """
    folder = Path(folder)
    path = folder / name
    if fcntl is None and shared:  # pragma: no cover - Windows has no shared lock here
        yield False
        return
    for _ in range(_LOCK_ATTEMPTS):
        fd = _open_lock_file(path)
        try:
            exclusive = _try_lock(fd, exclusive=True)
            if not exclusive:
                if not shared:
                    raise FolderInUseError(folder, _read_holder(fd))
                fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a holder cleans up (moments)
        except BaseException:
            os.close(fd)
            raise
        if _is_file_at(fd, path):
            break
        os.close(fd)  # the holder removed this file as we locked it: lock the new one
    else:  # pragma: no cover - a lock file that keeps vanishing
        raise OSError(errno.EAGAIN, "the lock file keeps being removed", str(path))
    try:
        if exclusive:
            started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            holder = f"{purpose}, pid {os.getpid()} on {socket.gethostname()}, started {started}"
            try:
                os.ftruncate(fd, 0)
                os.lseek(fd, 0, os.SEEK_SET)
                _write_all(fd, (holder + "\n").encode("utf-8", "replace"))
            except OSError as error:  # a full disk: name the lock file (it said no file)
                raise _naming(error, path) from None
            if shared:
                fcntl.flock(fd, fcntl.LOCK_SH)  # let other shared holders in from now on
        yield exclusive
    finally:
        if not shared and fcntl is not None and _is_file_at(fd, path):
            os.unlink(path)  # while still locked; a waiting process then locks a new file
        os.close(fd)  # releases the lock


_LOCK_ATTEMPTS = 100


def _open_lock_file(path: Path) -> int:
    """Open (creating it) the lock file ``path``: a regular file, never through a link."""
    flags = os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
    try:
        if _O_NOFOLLOW == 0 and path.is_symlink():  # pragma: no cover - no O_NOFOLLOW
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(error.errno, "a symbolic link, not gcul's lock file", str(path)) from None
        if error.errno == errno.EISDIR:
            raise OSError(error.errno, "a folder, not gcul's lock file", str(path)) from None
        raise _naming(error, path) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file, so not gcul's lock file", str(path))
    return fd


def _is_file_at(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not removed, not replaced)."""
    try:
        here = os.lstat(path)
    except FileNotFoundError:
        return False
    there = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _try_lock(fd: int, exclusive: bool) -> bool:
    if fcntl is not None:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import msvcrt  # pragma: no cover - Windows

    os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)  # pragma: no cover
    try:  # pragma: no cover
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:  # pragma: no cover
        return False
    return True  # pragma: no cover


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 4096, 0) if hasattr(os, "pread") else b""
        holder = text.decode("utf-8", "replace").strip().splitlines()
    except OSError:
        holder = []
    return holder[0] if holder and holder[0].strip() else "another process"


# --------------------------------------------------------------------------------------------
# What is at a path

_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def mode_kind(mode: int, *, regular: str = "a regular file") -> str:
    """What a file is, from its ``st_mode``: ``regular`` for a regular file, else "a folder",
    "a symbolic link", "a FIFO (named pipe)", "a socket", "a character device", "a block
    device" or "not a regular file".

    Examples
    --------
    >>> import stat
    >>> mode_kind(stat.S_IFIFO), mode_kind(stat.S_IFREG, regular="a file")
    ('a FIFO (named pipe)', 'a file')
    """
    for test, kind in _KINDS:
        if test(mode):
            return regular if kind == "a regular file" else kind
    return "not a regular file"


def file_kind(path: str | os.PathLike[str], *, regular: str = "a regular file") -> str | None:
    """What is at ``path``, without following a symbolic link (see :func:`mode_kind`); None if
    nothing is there.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file_kind(tmp), file_kind(tmp + "/missing")
    ('a folder', None)
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    return mode_kind(mode, regular=regular)


def check_folder(path: Path, option: str, *, writable: bool) -> None:
    """Check that ``path`` is a folder (``writable`` if asked), or can be created as one.

    Nothing is created. A ValueError names ``option`` (how the caller names the path, e.g.
    ``"--out"``), the path and what is wrong: a symbolic link to nowhere, something that is not a
    folder, a folder that is not writable, or an ancestor that stops the folder being created.
    Writability is judged by ``os.access`` here; :func:`check_writable` asks the file system.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     check_folder(pathlib.Path(tmp) / "new" / "folder", "out", writable=True)
    ...     _ = (pathlib.Path(tmp) / "file").write_text("")
    ...     try:
    ...         check_folder(pathlib.Path(tmp) / "file" / "sub", "out", writable=True)
    ...     except ValueError as error:
    ...         print(str(error).replace(tmp, "TMP"))
    out: cannot create 'TMP/file/sub': 'TMP/file' is a file, not a folder
    """
    if path.is_symlink() and not path.exists():
        raise ValueError(
            f"{option}: {str(path)!r} is a symbolic link to {os.readlink(path)!r}, which does not "
            f"exist; create that folder or choose another {option}"
        )
    if path.exists():
        if not path.is_dir():
            kind = file_kind(path, regular="a file")
            raise ValueError(f"{option}: {str(path)!r} is {kind}, not a folder")
        if writable and not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"{option}: folder {str(path)!r} is not writable")
        return
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(
            f"{option}: cannot create {str(path)!r}: {str(ancestor)!r} is "
            f"{file_kind(ancestor, regular='a file')}, not a folder"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ValueError(
            f"{option}: cannot create {str(path)!r}: folder {str(ancestor)!r} is not writable"
        )


def prepare_out_folder(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """Create the output folder ``path`` (with its parents) and prove it takes a new file.

    Call it before any work: a study that runs for minutes must not fail at its end because its
    output folder cannot be written.

    Parameters
    ----------
    path : path
        The folder; created if missing.
    option : str, optional
        How the caller names the path in its messages (default ``"--out"``).

    Returns
    -------
    Path
        ``path``, an existing folder in which a file was just created and removed.

    Raises
    ------
    ValueError
        One line naming ``option``, the path and what is wrong: something other than a folder
        there (a file, a symbolic link to nowhere, ...), an ancestor that is a file, or a folder
        the file system refuses to create or write in (permissions, a read-only mount, ``/proc``).
        A folder created before the refusal (a missing parent) stays.

    Notes
    -----
    :func:`check_folder` names the common mistakes without creating anything; the folder is then
    created and :func:`check_writable` writes a probe file in it, which asks the file system
    itself (``os.access`` ignores read-only mounts, and says yes to root everywhere).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     prepare_out_folder(pathlib.Path(tmp) / "new" / "out").is_dir()
    ...     _ = (pathlib.Path(tmp) / "file").write_text("")
    ...     try:
    ...         prepare_out_folder(pathlib.Path(tmp) / "file")
    ...     except ValueError as error:
    ...         print(str(error).replace(tmp, "TMP"))
    True
    --out: 'TMP/file' is a file, not a folder
    """
    path = Path(path)
    check_folder(path, option, writable=True)
    try:
        path.mkdir(parents=True, exist_ok=True)
        check_writable(path)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ValueError(f"{option}: cannot create or write in {str(path)!r}: {reason}") from None
    return path


def prepare_out_file(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """Prepare the output file ``path``: its folder created and proved writable, nothing there
    but a file (or a symbolic link, which :func:`atomic_write_bytes` replaces) or nothing.

    Call it before any work, as :func:`prepare_out_folder`; the file itself is not created.

    Parameters
    ----------
    path : path
        The file to be written later.
    option : str, optional
        How the caller names the path in its messages (default ``"--out"``).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        One line naming ``option``: a folder (or a FIFO, a device, ...) at ``path``, or a folder
        of ``path`` that cannot be created or written in (see :func:`prepare_out_folder`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     prepare_out_file(pathlib.Path(tmp) / "new" / "report.md").parent.is_dir()
    ...     try:
    ...         prepare_out_file(tmp)
    ...     except ValueError as error:
    ...         print(str(error).replace(tmp, "TMP"))
    True
    --out: 'TMP' is a folder where a file goes
    """
    path = Path(path)
    kind = file_kind(path, regular="a file")
    if kind not in (None, "a file", "a symbolic link"):
        raise ValueError(f"{option}: {str(path)!r} is {kind} where a file goes")
    prepare_out_folder(path.parent, option)
    return path
