"""Which clusters a fleet plan reads: export files, directories of them, kubeconfig contexts.

Each argument is one of:

* a file: one cluster (a ``deppy cluster export`` file, or any file ``--cluster`` reads);
* a directory: each ``.yaml``/``.yml``/``.json`` file under it, in name order, is one cluster
  (a folder of exports, as a hub's nightly ``deppy cluster export`` job leaves them);
* ``context:NAME``: the live cluster of that kubeconfig context (``--kubeconfig``, else the
  default kubeconfig), read as ``deppy upgrades --context NAME`` reads it.

The references are small values (an index and a name), so a batch of them travels to a worker
cheaply; the worker reads the cluster itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from deppy.cluster import ClusterState, read_cluster_files
from deppy.errors import InputError

__all__ = ["CONTEXT_PREFIX", "ClusterRef", "cluster_refs", "read_ref"]

CONTEXT_PREFIX = "context:"
_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class ClusterRef:
    """One cluster of the fleet: ``index`` is its place in the input (records come out in
    that order), ``name`` what the report calls it, ``path`` or ``context`` where it is."""

    index: int
    name: str
    path: str | None = None
    context: str | None = None


def _files(root: str, resolved: str, under: str = "") -> Iterator[tuple[str, str]]:
    """Each export under ``root`` (resolved: ``resolved``) as (its path relative to the root,
    its resolved path): the files of a directory in name order, then its subdirectories',
    as ``os.walk`` gives them (symlinked directories are not entered). Only a symlinked file
    is resolved on its own: resolving each of 10,000 paths cost a client that must list them
    before any worker starts ~1 s."""
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
        if entry.is_dir():
            if not entry.is_symlink():
                subdirs.append(relative)
        elif entry.name.lower().endswith(_SUFFIXES):
            path = os.path.join(resolved, relative)
            yield relative, os.path.realpath(path) if entry.is_symlink() else path
    for subdir in subdirs:
        yield from _files(root, resolved, subdir)


def cluster_refs(arguments: Iterable[str]) -> list[ClusterRef]:
    """The clusters the arguments name, in order; a path that does not exist is an error of
    the command (nothing was planned yet), a file that cannot be read is a per-cluster error
    later."""
    refs: list[ClusterRef] = []
    for argument in arguments:
        if argument.startswith(CONTEXT_PREFIX):
            context = argument[len(CONTEXT_PREFIX) :]
            if not context:
                raise InputError(argument, "names no context", "write context:NAME")
            refs.append(ClusterRef(len(refs), argument, context=context))
            continue
        root = Path(argument)
        if root.is_file():
            refs.append(ClusterRef(len(refs), argument, path=str(root.resolve())))
        elif root.is_dir():
            shown = str(root)  # as the argument says it, normalised ("exports/" -> "exports")
            for relative, path in _files(argument, str(root.resolve())):
                name = relative if shown == "." else os.path.join(shown, relative)
                refs.append(ClusterRef(len(refs), name, path=path))
        else:
            raise InputError(
                argument,
                "no such file or directory",
                "give cluster export files, directories of them, or context:NAME",
            )
    return refs


def read_ref(ref: ClusterRef, kubeconfig: str | None) -> ClusterState:
    """The cluster's state; raises a DeppyError naming the file or context when it cannot be
    read (the planner makes that the cluster's error record)."""
    if ref.path is not None:
        return read_cluster_files(ref.path)
    from deppy.cluster.live import read_live

    return read_live(kubeconfig, ref.context)
