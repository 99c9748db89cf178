"""A stored catalog's earlier contents (``NAME@N``) in a request to the service.

The service answers from the stored catalogs as they are now, read whole into memory once per
generation (:mod:`deppy.service.catalogs`). ``spec.sources: [NAME@1]`` asks for what NAME held
before its last refresh, as ``deppy resolve --catalog NAME@1`` does (issue 39: ``NAME@N`` works
wherever a catalog name is taken). Earlier contents are asked for rarely, so such a request is
answered from the store itself, through a source opened for that request alone, rather than
every generation holding every kept catalog in memory. A missing ``NAME@N`` is the store's one
error for it, in the words every command uses.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from deppy.catalog.catalog_set import BundleSource
from deppy.errors import InputError
from deppy.service.catalogs import Loaded
from deppy.service.problems import Problem
from deppy.store.schema import is_history_name


@contextmanager
def source_for(loaded: Loaded, home: Path, sources: Sequence[str]) -> Iterator[BundleSource]:
    """The source a request naming ``sources`` (its ``spec.sources``) is answered from: the
    loaded catalogs, or, when it names a catalog's earlier contents, the store, read in one
    transaction until the request ends."""
    asked = [(n, name) for n, name in enumerate(sources) if is_history_name(name)]
    if not asked:
        yield loaded.source
        return
    n, name = asked[0]
    if loaded.origin != "store":
        raise Problem(
            422,
            f"catalog {name!r}: earlier contents are kept for stored catalogs only, and this "
            f"service answers from {_ORIGINS.get(loaded.origin, loaded.origin)}",
            field=f"spec.sources[{n}]",
            fix="serve the stored catalogs (deppy serve with no --catalog), or run "
            f"deppy resolve --catalog {name}",
        )
    from deppy.store import Store

    store = Store(home)
    source = store.source()
    if source is None:  # the store was emptied since the catalogs were loaded
        raise _problem(store.missing(name))
    with source:
        try:  # the store's checks and words: NAME@N not kept, NAME named with its own NAME@N
            source.restricted(sources)
        except InputError as error:
            raise _problem(error) from None
        yield source  # whole, as deppy resolve --source has it (names it may suggest)


_ORIGINS = {
    "paths": "catalog paths (deppy serve --catalog PATH)",
    "embedded": "the embedded example",
}


def _problem(error: InputError) -> Problem:
    """The store's error for ``spec.sources`` (that of the CLI's ``--source``), as a 422."""
    return Problem(422, f"{error.where}: {error.what}", field="spec.sources", fix=error.fix)
