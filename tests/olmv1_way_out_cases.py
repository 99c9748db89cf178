"""ClusterExtension requests that find no bundle and have a way out keeping the version range
asked (issue 48), generated on small catalogs: seven shapes of mistake, each over chains of
three, four and five versions. ``tests/test_olmv1_first_way_out.py`` measures how often the
text's first way out is one of those."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from tests.olm_builders import Obj, bundle, channel, entry, needs_api, package, simple_package
from tests.olmv1_objects import cluster_catalog, cluster_extension

NAME_LABEL = "olm.operatorframework.io/metadata.name"
LENGTHS = (3, 4, 5)


@dataclass(frozen=True, slots=True)
class Case:
    """One request: catalogs (name → FBC objects), the documents, what the mistake is."""

    shape: str
    length: int
    catalogs: dict[str, list[Obj]]
    documents: list[dict[str, Any]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.shape}-{self.length}"


def _chain(versions: list[str], *, fast_head: bool = True) -> list[Obj]:
    """pkg's versions as one replaces chain in stable; channel fast holds the newest only."""
    objs = simple_package("pkg", *versions)
    return [*objs, channel("pkg", "fast", entry(f"pkg.v{versions[-1]}"))] if fast_head else objs


def _jump(versions: list[str]) -> list[Obj]:
    """stable walks every version, its newest needing an API no catalog has; fast jumps from
    the oldest straight to a patch of the newest."""
    last = versions[-1]
    jump = last.rsplit(".", 1)[0] + ".1"
    stable = [entry(f"pkg.v{versions[0]}")]
    stable += [entry(f"pkg.v{v}", f"pkg.v{p}") for p, v in pairwise(versions)]
    bundles = [bundle("pkg", v) for v in versions[:-1]]
    bundles += [bundle("pkg", last, needs_api("Widget")), bundle("pkg", jump)]
    fast = channel(
        "pkg", "fast", entry(f"pkg.v{versions[0]}"), entry(f"pkg.v{jump}", f"pkg.v{versions[0]}")
    )
    return [package("pkg", "stable"), channel("pkg", "stable", *stable), fast, *bundles]


def cases() -> Iterator[Case]:
    for n in LENGTHS:
        vs = [f"1.{i}.0" for i in range(n)]
        head, chain = vs[-1], _chain(vs)
        main = {"matchLabels": {NAME_LABEL: "main"}}
        old = {"matchLabels": {NAME_LABEL: "old"}}
        prod = {"matchLabels": {"env": "prod"}}
        # a downgrade under CatalogProvided: SelfCertified keeps the range
        downgrade = cluster_extension("ext", "pkg", head, version=f"<{head}")
        yield Case("downgrade", n, {"main": chain}, [downgrade])
        # a channel without the version: the channel that has it
        fast = cluster_extension("ext", "pkg", None, version=vs[0], channels=["fast"])
        yield Case("channel", n, {"main": chain}, [fast])
        # the asked channel reaches the range only through a bundle needing an unmet API:
        # SelfCertified is no way out (advice), the channel that jumps there is
        jump = cluster_extension("ext", "pkg", vs[0], version=f">={head}", channels=["stable"])
        yield Case("jump", n, {"main": _jump(vs)}, [jump])
        # a selector that matches no ClusterCatalog
        nowhere = cluster_extension("ext", "pkg", None, selector=prod)
        yield Case("selector", n, {"main": chain}, [nowhere])
        # the only catalog chosen is Unavailable
        off = [
            cluster_catalog("main", available=False),
            cluster_extension("ext", "pkg", None, selector=main),
        ]
        yield Case("unavailable", n, {"main": chain}, off)
        # two catalogs of one priority offer it
        tie = cluster_extension("ext", "pkg", None, version=f">={vs[1]}")
        yield Case("tie", n, {"main": chain, "mirror": _chain(vs)}, [tie])
        # the selector leaves out the catalog that has the range
        left = cluster_extension("ext", "pkg", None, version=f">={head}", selector=old)
        yield Case("left-out", n, {"main": chain, "old": _chain(vs[:1])}, [left])


def keeps_the_range(change: dict[str, Any]) -> bool:
    """A way out that leaves ``spec.source.catalog.version`` as asked (advice changes nothing)."""
    if change.get("kind") in ("change-extension", "new-extension"):
        return change.get("field") != "spec.source.catalog.version"
    return change.get("kind") == "change-catalog"


__all__ = ["Case", "cases", "keeps_the_range"]
