"""``deppy catalog``: the stored catalogs that commands use when no --catalog is given.

Adding reads and checks a catalog once (problems are reported, valid objects kept) and stores it
in a form that resolution reads in milliseconds. Each command changes the store in one
transaction, so an interrupted ``add`` or ``refresh`` leaves the store as it was.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from deppy.cli.data_output import SETTINGS, dump, say
from deppy.cli.group import CommandGroup
from deppy.cli.main import cli
from deppy.cli.workflow_options import output_option, quiet_option, registry_options, to_stderr
from deppy.errors import InputError
from deppy.oci.reference import is_image_reference
from deppy.store import Store, StoredCatalog
from deppy.workflows.catalog_loading import problems_what, report_problems

if TYPE_CHECKING:
    from deppy.catalog.model import Catalog

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_COLUMNS = ("NAME", "PRIORITY", "PACKAGES", "CHANNELS", "BUNDLES", "PROBLEMS", "UPDATED", "PATH")


_LAZY = {
    "check": ("deppy.cli.check_command", "catalog_check"),
    "diff": ("deppy.cli.catalog_diff_command", "catalog_diff"),
    "render": ("deppy.cli.catalog_render_command", "catalog_render"),
}


class _CatalogGroup(CommandGroup):
    """``deppy catalog``: ``check``, ``diff`` and ``render`` are written beside the other everyday
    workflows, in modules of their own, imported only when one of them runs (``check``'s
    progress display and loader would cost every ``catalog`` command's start-up)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _LAZY:
            self._attach(cmd_name)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for name in _LAZY:
            if name not in self.commands:
                self._attach(name)
        return super().list_commands(ctx)

    def _attach(self, name: str) -> None:
        import importlib

        module, attribute = _LAZY[name]
        self.add_command(getattr(importlib.import_module(module), attribute), name)


@cli.group("catalog", cls=_CatalogGroup)
def catalog_group() -> None:
    """Manage the stored catalogs (used when a command gets no --catalog).

    The store lives in $DEPPY_HOME, else in the user data directory.
    """


@catalog_group.command("add")
@click.argument("name")
@click.argument("path", metavar="PATH|URL")
@click.option(
    "--priority",
    type=int,
    default=0,
    show_default=True,
    help="Higher priority catalogs are preferred when several offer a package.",
)
@quiet_option
@registry_options
def add_cmd(name: str, path: str, priority: int) -> None:
    """Read the File-Based Catalog at PATH and store it as NAME.

    PATH may also be a URL: grpc://HOST:PORT (operator-registry's gRPC API, as 'opm serve' and
    CatalogSource pods serve it) or http(s)://HOST/.../api/v1/all (a catalogd FBC stream); or a
    catalog image: docker://HOST[:PORT]/REPO[:TAG|@sha256:DIGEST] or oci:DIR[:TAG] (its TLS
    setting and platform are kept for 'catalog refresh').
    A file may be an operator-registry SQLite index (the index.db of an older index image).
    """
    _check_name(name)
    store = Store()
    existing = store.find(name)
    if existing is not None:
        raise InputError(
            f"catalog {name!r}",
            f"a catalog of this name is already in the store (from {existing.path})",
            f"re-read it with 'deppy catalog refresh {name}', or remove it first",
        )
    with _progress() as steps:
        catalog = steps.read(_location(path), name, priority)
        report_problems(catalog, warnings_to)
        stored = store.add(catalog, progress=steps.storing)
    if is_image_reference(path):
        _remember_image(name)
    say(f"added catalog {name} (priority {stored.priority}): {_counts(stored)}")


@catalog_group.command("list")
@output_option("text", "json", "yaml", "name")
def list_cmd(output: str) -> None:
    """Show the stored catalogs, most preferred first."""
    store = Store()
    stored = store.list()
    if output == "name":
        for c in stored:
            say(c.name)
        return
    if output != "text":
        dump({"store": str(store.path), "catalogs": [_as_dict(c) for c in stored]}, output)
        return
    if not stored:
        say(
            f"deppy: no stored catalogs in {store.path}; add one with "
            "'deppy catalog add NAME PATH'",
            err=True,
        )
        return
    for line in _table(stored):
        say(line)


def _table(stored: list[StoredCatalog]) -> list[str]:
    """The stored catalogs as ``catalog list`` and ``catalog history`` show them."""
    rows = [_COLUMNS] + [
        (
            c.name,
            str(c.priority),
            str(c.packages),
            str(c.channels),
            str(c.bundles),
            str(c.problems),
            c.updated,
            c.path,
        )
        for c in stored
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS) - 1)]
    return [
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    ]


KEEP_VARIABLE = "DEPPY_CATALOG_HISTORY"
KEPT_BY_DEFAULT = 3
_KEEP = click.option(
    "--keep",
    type=click.IntRange(min=0),
    default=None,
    help="How many earlier contents of the catalog to keep (NAME@1 the most recent); "
    f"0 keeps none. Default: ${KEEP_VARIABLE}, else {KEPT_BY_DEFAULT}.",
)


def _kept(keep: int | None) -> int:
    """``--keep``, else ``$DEPPY_CATALOG_HISTORY``, else the default."""
    if keep is not None:
        return keep
    value = os.environ.get(KEEP_VARIABLE, "").strip()
    if not value:
        return KEPT_BY_DEFAULT
    if not value.isascii() or not value.isdigit():
        raise InputError(
            f"${KEEP_VARIABLE}",
            f"{value!r} is not a number of earlier contents to keep",
            "set it to 0 or more, or unset it",
        )
    return int(value)


@catalog_group.command("history")
@click.argument("name")
@click.option(
    "--keep",
    type=click.IntRange(min=0),
    default=None,
    help="Drop the earlier contents beyond this many (never the catalog itself).",
)
@output_option("text", "json", "yaml", "name")
def history_cmd(name: str, keep: int | None, output: str) -> None:
    """Show the stored catalog NAME and the earlier contents kept by its refreshes: NAME@1
    (before the last refresh), NAME@2, … — each usable wherever a stored name is
    (--catalog NAME@1, --since NAME@1, catalog diff NAME@1 NAME)."""
    store = Store()
    _current(store, name, "has no history of its own")
    if keep is not None:
        dropped = store.prune_history(name, keep)
        say(f"dropped {dropped} earlier content{'' if dropped == 1 else 's'} of {name}", err=True)
    found = store.history(name)
    if output == "name":
        for c in found:
            say(c.name)
    elif output != "text":
        dump({"catalog": name, "history": [_as_dict(c) for c in found]}, output)
    else:
        for line in _table(found):
            say(line)


@catalog_group.command("remove")
@click.argument("name")
def remove_cmd(name: str) -> None:
    """Remove the stored catalog NAME, with the earlier contents its refreshes kept."""
    store = Store()
    _stored(store, name)
    removed = store.remove(name)
    if "@" not in name:
        from deppy.store.image_sources import remember_image_settings

        remember_image_settings(name, None)
    say(f"removed catalog {removed.name} ({removed.bundles} bundles)")


@catalog_group.command("refresh")
@click.argument("name")
@_KEEP
@quiet_option
@registry_options
def refresh_cmd(name: str, keep: int | None) -> None:
    """Read the stored catalog NAME again from its path (or URL) and replace it in one step;
    what it held before is kept as NAME@1 (see 'deppy catalog history NAME'). Content that
    did not change is kept as it is: no NAME@1, and the command says "unchanged"."""
    store = Store()
    keep = _kept(keep)
    before = _current(store, name, "is kept as it was, never read again")
    if is_image_reference(before.path):
        _recall_image(name)
    with _progress() as steps:
        catalog = steps.read(before.path, name, before.priority)
        report_problems(catalog, warnings_to)
        stored = store.refresh(catalog, progress=steps.storing, keep=keep)
    if stored is None:
        say(f"catalog {name} unchanged: {_counts(before)} (its history as it was)")
        return
    kept = f"; kept as {name}@1" if keep else ""
    say(f"refreshed catalog {name}: {_counts(stored)} (was {before.bundles} bundles{kept})")


@catalog_group.command("problems")
@click.argument("target", metavar="NAME|PATH")
@output_option("text", "json", "yaml")
def problems_cmd(target: str, output: str) -> None:
    """List the problems met when the catalog was read (objects skipped, channel entries kept
    without an unreadable skipRange): a stored catalog (as of its add or last refresh), a
    catalog directory or a catalog image. Exit 0 when there are none, 1 when there are some."""
    if is_image_reference(target):
        from deppy.resolution.request_parsing import CatalogSpec
        from deppy.workflows.catalog_loading import load_catalogs

        loaded = load_catalogs([CatalogSpec(target, None, 0)], one_shot=False)
        problems = loaded.catalog(loaded.names()[0]).problems  # type: ignore[attr-defined]
    elif Path(target).exists():
        from deppy.catalog.bundle_tree import load_any_catalog

        problems = load_any_catalog(target).problems
    else:
        problems = Store().problems(target)
    if output == "text":
        for problem in problems:
            say(str(problem))
        say(f"{problems_what(problems) or 'no problems'} in {target}", err=True)
    else:
        rows = [{"file": p.file, "object": p.obj, "problem": p.why} for p in problems]
        dump({"catalog": target, "problems": rows}, output)
    raise SystemExit(1 if problems else 0)


def warnings_to(line: str) -> None:
    """A load problem's line on stderr, unless -q."""
    if not SETTINGS.quiet:
        to_stderr(line)


def _location(path: str) -> str:
    """A URL or registry reference as given; a path (an OCI layout's too) made absolute
    (refresh reads it from anywhere)."""
    from deppy.cluster.remote import is_catalog_url

    if is_image_reference(path):
        from deppy.oci.reference import LayoutReference, parse_reference

        reference = parse_reference(path, where="PATH")
        if not isinstance(reference, LayoutReference):
            return path
        tag = f":{reference.tag}" if reference.tag is not None else ""
        return f"oci:{os.path.abspath(reference.directory)}{tag}"
    return path if is_catalog_url(path) else os.path.abspath(path)


def _remember_image(name: str) -> None:
    """Keep how the image of catalog ``name`` was read (TLS, platform), for its refreshes."""
    from deppy.catalog.image_catalog import pull_options
    from deppy.store.image_sources import remember_image_settings

    options = pull_options()
    remember_image_settings(name, {"tls_verify": options.tls_verify, "platform": options.platform})


def _recall_image(name: str) -> None:
    """Read the image of catalog ``name`` as ``catalog add`` did, unless the command says
    otherwise (an option given on it wins)."""
    from dataclasses import replace

    from deppy.catalog.image_catalog import pull_options, use_pull_options
    from deppy.store.image_sources import image_settings

    stored = image_settings(name)
    context = click.get_current_context()
    options = pull_options()
    if "tls_verify" in stored and _defaulted(context, "tls_verify"):
        options = replace(options, tls_verify=stored["tls_verify"] is not False)
    if isinstance(stored.get("platform"), str) and _defaulted(context, "platform"):
        options = replace(options, platform=stored["platform"])
    use_pull_options(options)


def _defaulted(context: click.Context, option: str) -> bool:
    return context.get_parameter_source(option) in (None, click.core.ParameterSource.DEFAULT)


def _check_name(name: str) -> None:
    if not _NAME.match(name):
        raise InputError(
            f"catalog name {name!r}",
            "not a valid name",
            "use letters, digits, '.', '_' and '-' (up to 63), starting with a letter or digit",
        )


def _stored(store: Store, name: str) -> StoredCatalog:
    found = store.find(name)
    if found is None:
        raise store.missing(name)
    return found


def _current(store: Store, name: str, what: str) -> StoredCatalog:
    """The stored catalog ``name`` itself, not earlier contents of one (``NAME@1``)."""
    if "@" in name:
        base = name.split("@", 1)[0]
        raise InputError(
            f"catalog {name!r}", f"earlier contents of {base}: {what}", f"give {base} instead"
        )
    return _stored(store, name)


def _counts(stored: StoredCatalog) -> str:
    return (
        f"{stored.packages} packages, {stored.channels} channels, {stored.bundles} bundles "
        f"from {stored.path}"
    )


def _as_dict(stored: StoredCatalog) -> dict[str, object]:
    return {
        "name": stored.name,
        "priority": stored.priority,
        "path": stored.path,
        "packages": stored.packages,
        "channels": stored.channels,
        "bundles": stored.bundles,
        "problems": stored.problems,
        "updated": stored.updated,
    }


class _Steps:
    """Reading then storing a catalog, with progress on a terminal (nothing otherwise)."""

    def __init__(self, show: Callable[[str, int | None, int], None] | None) -> None:
        self._show = show

    def read(self, location: str, name: str, priority: int) -> Catalog:
        from deppy.cluster.remote import is_catalog_url

        if self._show is not None:
            self._show(f"reading catalog {name}", None, 0)
        if is_catalog_url(location):
            from deppy.cluster.remote import load_url_catalog

            return load_url_catalog(location, name=name, priority=priority)
        if is_image_reference(location):
            from dataclasses import replace

            from deppy.catalog.image_catalog import load_image_catalog, pull_options
            from deppy.workflows.catalog_loading import images_path, parsed_cache

            catalog = load_image_catalog(
                location,
                name=name,
                priority=priority,
                cache_dir=images_path(),
                cache=parsed_cache(),
                report=warnings_to,
                where="PATH",
                options=replace(pull_options(), last_read_when_unreachable=False),
            )
            catalog.path = location  # what refresh reads again, not the cache's copy
            return catalog
        from deppy.catalog.bundle_tree import load_any_catalog as load_catalog
        from deppy.workflows.catalog_loading import parsed_cache

        return load_catalog(Path(location), name=name, priority=priority, cache=parsed_cache())

    def storing(self, done: int, total: int) -> None:
        if self._show is not None:
            self._show("storing bundles", total, done)


@contextmanager
def _progress() -> Iterator[_Steps]:
    if not sys.stderr.isatty() or SETTINGS.quiet:
        yield _Steps(None)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TaskID,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        tasks: dict[str, TaskID] = {}

        def show(description: str, total: int | None, done: int) -> None:
            task = tasks.get(description)
            if task is None:
                for other in tasks.values():
                    progress.update(other, visible=False)
                task = tasks[description] = progress.add_task(description, total=total)
            progress.update(task, completed=done)

        yield _Steps(show)


@catalog_group.command("serve")
@click.argument("source", metavar="PATH|NAME")
@click.option(
    "--grpc",
    "grpc_address",
    metavar="HOST:PORT",
    help="Serve operator-registry's gRPC API here (default 127.0.0.1:50051 unless only --http "
    "is given; port 0 picks a free one).",
)
@click.option(
    "--http",
    "http_address",
    metavar="HOST:PORT",
    help="Also serve the catalog as catalogd does: GET http://HOST:PORT/.../api/v1/all.",
)
@registry_options
def serve_cmd(source: str, grpc_address: str | None, http_address: str | None) -> None:
    """Serve a catalog directory, catalog image (docker://…, oci:DIR) or the stored catalog
    NAME the way 'opm serve' does, until stopped (Ctrl-C or SIGTERM). A CatalogSource with
    spec.address, 'deppy catalog add NAME grpc://HOST:PORT' and 'deppy resolve' all read it."""
    from deppy.workflows.catalog_serving import serve_until_stopped

    if grpc_address is None and http_address is None:
        grpc_address = "127.0.0.1:50051"
    serve_until_stopped(source, grpc_address, http_address, announce=_announce)


def _announce(line: str) -> None:
    say(line)
    sys.stdout.flush()
