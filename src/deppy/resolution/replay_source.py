"""Catalog access that can be recorded and answered again without the catalogs.

During a traced resolution the nodes that replay re-runs (solver, output collector) see their
catalogs through a ``RecordingSource``; every question and its answer go into the trace. On
replay a ``ReplayedSource`` answers those same questions from the trace, and refuses any other
with a message, so a replay never answers from data it does not have.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import GVK, Bundle, Channel, Deprecation, Package
from deppy.errors import InputError

CallKey = tuple[str, tuple[Any, ...]]


def _scope(scope: str, names: Sequence[str]) -> str:
    return f"{scope}restricted({','.join(names)})/"


class RecordingSource:
    """Passes questions through and remembers each answer (lists as tuples: callers sort the
    lists they get in place, which must not change the record).

    A restricted view records into the same table, its questions prefixed with the restriction
    (``restricted(a,b)/bundles_of``), so a replay can restrict in the same way.
    """

    def __init__(
        self, inner: BundleSource, calls: dict[CallKey, Any] | None = None, scope: str = ""
    ) -> None:
        self.inner = inner
        self.calls: dict[CallKey, Any] = {} if calls is None else calls
        self.scope = scope

    def _ask(self, method: str, *args: Any) -> Any:
        key = (self.scope + method, args)
        if key not in self.calls:
            answer = getattr(self.inner, method)(*args)
            if isinstance(answer, list | Iterator):
                answer = tuple(answer)
            self.calls[key] = answer
        found = self.calls[key]
        return list(found) if isinstance(found, tuple) else found

    def rank(self, catalog: str) -> int:
        return int(self._ask("rank", catalog))

    def priority(self, catalog: str) -> int:
        return int(self._ask("priority", catalog))

    def names(self) -> list[str]:
        return list(self._ask("names"))

    def restricted(self, names: Sequence[str]) -> BundleSource:
        return RecordingSource(self.inner.restricted(names), self.calls, _scope(self.scope, names))

    def bundles_of(self, package: str) -> list[Bundle]:
        return list(self._ask("bundles_of", package))

    def providers_of(self, gvk: GVK) -> list[Bundle]:
        return list(self._ask("providers_of", gvk))

    def labelled(self, label: str) -> list[Bundle]:
        return list(self._ask("labelled", label))

    def has_package(self, package: str) -> bool:
        return bool(self._ask("has_package", package))

    def package(self, catalog: str, name: str) -> Package | None:
        found: Package | None = self._ask("package", catalog, name)
        return found

    def channels(self, catalog: str, package: str) -> list[Channel]:
        return list(self._ask("channels", catalog, package))

    def all_bundles(self) -> Iterator[Bundle]:
        return iter(self._ask("all_bundles"))

    def package_names(self) -> list[str]:
        return list(self._ask("package_names"))

    def catalogs_with(self, package: str) -> list[str]:
        return list(self._ask("catalogs_with", package))

    def deprecation_of(self, bundle: Bundle, channel: str | None = None) -> Deprecation | None:
        found: Deprecation | None = self._ask("deprecation_of", bundle, channel)
        return found

    def is_deprecated(self, bundle: Bundle) -> bool:
        return bool(self._ask("is_deprecated", bundle))

    def channel_deprecated(self, catalog: str, package: str, channel: str) -> str | None:
        found: str | None = self._ask("channel_deprecated", catalog, package, channel)
        return found


class ReplayedSource(RecordingSource):
    """Answers only the questions a recording asked, from the recorded answers."""

    def __init__(self, answers: Mapping[CallKey, Any], where: str, scope: str = "") -> None:
        self.calls = answers if isinstance(answers, dict) else dict(answers)
        self.where = where
        self.scope = scope

    def _ask(self, method: str, *args: Any) -> Any:
        try:
            found = self.calls[(self.scope + method, args)]
        except KeyError:
            shown = ", ".join(str(a) for a in args)
            raise InputError(
                self.where,
                f"the trace holds no catalog answer to {self.scope}{method}({shown})",
                "replay asks only what the recording asked; record the trace again",
            ) from None
        return list(found) if isinstance(found, tuple) else found

    def restricted(self, names: Sequence[str]) -> BundleSource:
        return ReplayedSource(self.calls, self.where, _scope(self.scope, names))
