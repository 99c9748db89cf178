"""Which clusters a fleet plan reads: export files, directories of them, kubeconfig contexts.

Each argument is one of:

* a file: one cluster (a ``deppy cluster export`` file, or any file ``--cluster`` reads);
* a directory: each ``.yaml``/``.yml``/``.json`` file under it, in name order, is one cluster
  (a folder of exports, as a hub's nightly ``deppy cluster export`` job leaves them);
* ``context:NAME``: the live cluster of that kubeconfig context (``--kubeconfig``, else the
  default kubeconfig), read as ``deppy upgrades --context NAME`` reads it.

The references are small values (an index and a name), so a batch of them travels to a worker
cheaply; the worker reads the cluster itself. What a directory holds is not trusted: an entry
that cannot be an export (a name that is not UTF-8, a symlink loop, a FIFO, a link to a device)
becomes a reference with its ``problem``, planned as that cluster's error record, so one such
entry never stops the run nor blocks it (a FIFO is never opened).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from deppy.cluster import ClusterState, read_cluster_export, read_cluster_files
from deppy.errors import DeppyError, InputError, printable_path, special_file

__all__ = [
    "CONTEXT_PREFIX",
    "EXPORT_LIMIT",
    "ClusterRef",
    "cluster_refs",
    "read_ref",
    "with_content",
]

EXPORT_LIMIT = 64 * 1024 * 1024
"""The largest export a client sends a remote worker (a batch holds at most 500 of them and
a few batches are in flight; real exports are tens of KB)."""

CONTEXT_PREFIX = "context:"
_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class ClusterRef:
    """One cluster of the fleet: ``index`` is its place in the input (records come out in
    that order), ``name`` what the report calls it (printable), ``path`` or ``context`` where
    it is; ``problem`` why it cannot be read, found while listing (it has no path then);
    ``catalog_set`` the catalogs its export names as images (``FleetSettings.catalog_sets``;
    None: the run's ``--catalog``, or the stored catalogs).

    For a worker that cannot see the client's files (``with_content``): ``content`` is the
    export's bytes, read by the client, or ``failed`` the error its read gave there."""

    index: int
    name: str
    path: str | None = None
    context: str | None = None
    problem: str | None = None
    content: bytes | None = None
    failed: str | None = None
    catalog_set: int | None = None


_NOT_UTF8 = "the file name is not UTF-8; rename the file (a cluster is named by its file)"
_LOOP = "too many levels of symbolic links; give a path that resolves"


def _problem(path: str, entry: os.DirEntry[str] | None = None) -> str | None:
    """Why the export at ``path`` cannot be read, seen without opening it; None when it can
    be tried (a regular file, or a link to nothing: that one's read says "no such file")."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return _NOT_UTF8
    if entry is not None and entry.is_file(follow_symlinks=False):
        return None  # the common case, known from the listing without a system call
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return _LOOP if error.errno == errno.ELOOP else None
    if stat.S_ISDIR(mode):
        return None
    kind = special_file(mode)
    return f"is {kind}, not a file; give a 'deppy cluster export' file" if kind else None


def _files(root: str, resolved: str, under: str = "") -> Iterator[tuple[str, str, str | None]]:
    """Each export under ``root`` (resolved: ``resolved``) as (its path relative to the root,
    its resolved path, why it cannot be read or None): the files of a directory in name
    order, then its subdirectories', as ``os.walk`` gives them (symlinked directories are not
    entered). Only a symlinked file is resolved on its own: resolving each of 10,000 paths
    cost a client that must list them before any worker starts ~1 s."""
    try:
        with os.scandir(os.path.join(root, under)) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:  # unreadable: skipped, as os.walk skips it
        return
    subdirs = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        relative = os.path.join(under, entry.name)
        if _is_dir(entry):
            if not entry.is_symlink():
                subdirs.append(relative)
        elif entry.name.lower().endswith(_SUFFIXES):
            path = os.path.join(resolved, relative)
            problem = _problem(path, entry)
            if problem is None and entry.is_symlink():
                path = os.path.realpath(path)
            yield relative, path, problem
    for subdir in subdirs:
        yield from _files(root, resolved, subdir)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a symlink loop: listed as a file, whose problem says so
        return False


def cluster_refs(arguments: Sequence[str]) -> list[ClusterRef]:
    """The clusters the arguments name, in order; a path that does not exist is an error of
    the command (nothing was planned yet), a file that cannot be read is a per-cluster error
    later."""
    refs: list[ClusterRef] = []
    for argument in arguments:
        if argument == "-":  # `-` reads standard input elsewhere; here it would be a file
            raise InputError(
                "-",
                "a fleet is not read from standard input (each worker opens its exports)",
                "give cluster export files, directories of them, or context:NAME",
            )
        if argument.startswith(CONTEXT_PREFIX):
            context = argument[len(CONTEXT_PREFIX) :]
            if not context:
                raise InputError(argument, "names no context", "write context:NAME")
            refs.append(ClusterRef(len(refs), argument, context=context))
            continue
        root = Path(argument)
        # a cluster is named by its path under the argument (an export's own name, never the
        # full path the argument may spell out); under the argument's own name when several
        # arguments could hold the same names
        prefix = root.resolve().name if len(arguments) > 1 else ""
        if root.is_dir():
            for relative, path, problem in _files(argument, str(root.resolve())):
                refs.append(_ref(len(refs), os.path.join(prefix, relative), path, problem))
        elif root.is_file() or os.path.lexists(argument):
            path = str(root.resolve())
            refs.append(_ref(len(refs), root.name, path, _problem(path)))
        else:
            raise InputError(
                argument,
                "no such file or directory",
                "give cluster export files, directories of them, or context:NAME",
            )
    return refs


def _ref(index: int, name: str, path: str, problem: str | None) -> ClusterRef:
    """The reference, named so that any report can print the name (a control character in a
    file name reached the terminal)."""
    if problem is not None:
        return ClusterRef(index, printable_path(name), problem=problem)
    return ClusterRef(index, printable_path(name), path=path)


def read_ref(ref: ClusterRef, kubeconfig: str | None) -> ClusterState:
    """The cluster's state; raises a DeppyError naming the file or context when it cannot be
    read (the planner makes that the cluster's error record)."""
    if ref.problem is not None:
        raise InputError(ref.name, ref.problem)
    if ref.failed is not None:
        raise DeppyError(ref.failed)
    if ref.content is not None and ref.path is not None:
        return read_cluster_export(ref.content, str(Path(ref.path)))
    if ref.path is not None:
        return read_cluster_files(ref.path)
    from deppy.cluster.live import read_live

    return read_live(kubeconfig, ref.context)


def with_content(ref: ClusterRef) -> ClusterRef:
    """The reference with its export's bytes, for a worker on another machine (a dask
    cluster shares no file system): the worker reads the cluster from them as it would from
    the file, and says the same (``source`` is still the client's path). A file that cannot
    be read here travels as its error (the words a worker reading it would have said); one
    past ``EXPORT_LIMIT`` as that, never whole."""
    if ref.path is None:
        return ref
    try:
        with open(ref.path, "rb") as file:  # a FIFO or device was refused when listed
            data = file.read(EXPORT_LIMIT + 1)
    except OSError:
        try:
            read_cluster_files(ref.path)
        except DeppyError as error:
            return replace(ref, failed=str(error))
        return ref  # readable after all (a directory of kubectl output): read where it is
    if len(data) > EXPORT_LIMIT:
        why = InputError(
            str(Path(ref.path)),
            f"is larger than {EXPORT_LIMIT // (1024 * 1024)} MiB, the most a fleet plan sends "
            "a dask worker",
            "export only the operators' objects ('deppy cluster export')",
        )
        return replace(ref, failed=str(why))
    return replace(ref, content=data)
