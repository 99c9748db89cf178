"""OLM v0's rule set (resolution/olmv0), one small catalog per place it differs from deppy's.

Each test resolves the same request under both rule sets and shows both answers: the row of
docs/olm-v0/rules.md it stands for is named in its docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from deppy.catalog.model import Catalog, Channel, ChannelEntry
from deppy.resolution.olmv0 import sort_channel
from tests.olm_builders import (
    Obj,
    bundle,
    channel,
    entry,
    make_catalog,
    max_ocp,
    needs_package,
    package,
    picked,
    run,
    simple_package,
    why_not,
)

MakeCatalog = Callable[..., Catalog]
DEPRECATED = {"type": "olm.deprecated", "value": {}}


@pytest.fixture
def make(tmp_path: Path) -> MakeCatalog:
    def build(objs: Sequence[Obj], *, name: str = "main", priority: int = 0) -> Catalog:
        return make_catalog(tmp_path, objs, name=name, priority=priority)

    return build


def both(catalogs: Catalog | Sequence[Catalog], *args: Sequence[str], **kwargs: object) -> tuple:
    return tuple(run(catalogs, *args, rules=r, **kwargs) for r in ("deppy", "olm-v0"))  # type: ignore[arg-type]


def test_skipped_entries_are_no_candidates(make: MakeCatalog) -> None:
    """Row "skipped entries": OLM v0 walks a channel without the entries another one skips."""
    catalog = make(
        [
            package("a"),
            channel(
                "a",
                "stable",
                entry("a.v1.0.0"),
                entry("a.v1.1.0", "a.v1.0.0"),
                entry("a.v1.2.0", "a.v1.0.0", skips=["a.v1.1.0"]),
            ),
            *(bundle("a", v) for v in ("1.0.0", "1.1.0", "1.2.0")),
        ]
    )
    deppy, olm = both(catalog, ["a@<1.2.0"])
    assert picked(deppy) == {"a": "1.1.0"}
    assert picked(olm) == {"a": "1.0.0"}


def test_head_first_not_highest_version(make: MakeCatalog) -> None:
    """Row "candidate order": the head of the replaces chain first, whatever its version."""
    catalog = make(
        [
            package("a"),
            channel("a", "stable", entry("a.v2.0.0"), entry("a.v1.5.0", "a.v2.0.0")),
            bundle("a", "2.0.0"),
            bundle("a", "1.5.0"),
        ]
    )
    deppy, olm = both(catalog, ["a"])
    assert picked(deppy) == {"a": "2.0.0"}
    assert picked(olm) == {"a": "1.5.0"}


def test_deprecated_bundles_are_never_chosen(make: MakeCatalog) -> None:
    """Row "deprecated bundles": OLM v0 prohibits a bundle with olm.deprecated."""
    objs = [*simple_package("a", "1.0.0"), bundle("a", "2.0.0", DEPRECATED)]
    objs[1] = channel("a", "stable", entry("a.v1.0.0"), entry("a.v2.0.0", "a.v1.0.0"))
    deppy, olm = both(make(objs), ["a"])
    assert picked(deppy) == {"a": "2.0.0"}
    assert picked(olm) == {"a": "1.0.0"}
    deppy, olm = both(make(objs, name="only"), ["a@2.0.0"])
    assert picked(deppy) == {"a": "2.0.0"}
    assert "bundle a.v2.0.0 is deprecated" in why_not(olm)


def test_two_chains_have_no_head(make: MakeCatalog) -> None:
    """Row "no channel head": two replaces chains are OLM v0's error, deppy orders by version."""
    catalog = make(
        [package("a"), channel("a", "stable", "a.v1.0.0", "a.v2.0.0")]
        + [bundle("a", v) for v in ("1.0.0", "2.0.0")]
    )
    deppy, olm = both(catalog, ["a"])
    assert picked(deppy) == {"a": "2.0.0"}
    text = why_not(olm)
    assert (
        "a unique replacement chain within a channel is required to determine the relative "
        'order between channel entries, but 2 replacement chains were found in channel "stable" '
        'of package "a": a.v1.0.0, a.v2.0.0'
    ) in " ".join(text.split())


def test_a_cycle_has_no_head(make: MakeCatalog) -> None:
    catalog = make(
        [
            package("a"),
            channel("a", "stable", entry("a.v1.0.0", "a.v2.0.0"), entry("a.v2.0.0", "a.v1.0.0")),
            bundle("a", "1.0.0"),
            bundle("a", "2.0.0"),
        ]
    )
    _, olm = both(catalog, ["a"])
    assert "no channel heads (entries not replaced by another entry)" in " ".join(
        why_not(olm).split()
    )


def test_sort_channel_words() -> None:
    """The chain below a head that loops back is OLM v0's cycle error, named by its head."""
    chan = Channel(
        "p",
        "c",
        (
            ChannelEntry("h", "x"),
            ChannelEntry("x", "y"),
            ChannelEntry("y", "x"),
        ),
        "test",
    )
    found = sort_channel(chan, {"h", "x", "y"})
    assert found.error == (
        'a cycle exists in the chain of replacement beginning with "h" in channel "c" of '
        'package "p"'
    )
    assert sort_channel(chan, {"h"}).names == ("h",)


def test_installed_moves_one_step(make: MakeCatalog) -> None:
    """Row "installed bundle": OLM v0's next InstallPlan is one step, not the end of the path."""
    catalog = make(simple_package("a", "1.0.0", "1.1.0", "1.2.0"))
    deppy, olm = both(catalog, [], ["a@1.0.0,channel=stable,catalog=main"])
    assert picked(deppy) == {"a": "1.2.0"}
    assert picked(olm) == {"a": "1.1.0"}


def test_installed_takes_the_nearest_head_that_replaces_it(make: MakeCatalog) -> None:
    """A skipRange including the installed version makes the head itself the next step."""
    objs = simple_package("a", "1.0.0", "1.1.0")
    objs[1] = channel(
        "a",
        "stable",
        entry("a.v1.0.0"),
        entry("a.v1.1.0", "a.v1.0.0"),
        entry("a.v1.2.0", "a.v1.1.0", skipRange=">=1.0.0 <1.2.0"),
    )
    objs.append(bundle("a", "1.2.0"))
    _, olm = both(make(objs), [], ["a@1.0.0,channel=stable,catalog=main"])
    assert picked(olm) == {"a": "1.2.0"}


def test_startingcsv_and_default_channel(make: MakeCatalog, tmp_path: Path) -> None:
    """startingCSV narrows a Subscription to one bundle; no channel: the default one first."""
    from deppy.catalog.catalog_set import CatalogSet
    from deppy.resolution.request import RequiredPackage, ResolutionRequest
    from deppy.resolution.resolver import resolve

    catalog = make(
        [
            package("a", "stable"),
            channel("a", "alpha", entry("a.v9.0.0")),
            channel("a", "stable", entry("a.v1.0.0"), entry("a.v1.1.0", "a.v1.0.0")),
            *(bundle("a", v) for v in ("1.0.0", "1.1.0", "9.0.0")),
        ]
    )
    _, olm = both(catalog, ["a"])
    assert picked(olm) == {"a": "1.1.0"}
    starting = RequiredPackage("a", channel="stable", catalog="main", starting_csv="a.v1.0.0")
    answer = resolve(CatalogSet([catalog]), ResolutionRequest((starting,), rules="olm-v0"))
    assert picked(answer) == {"a": "1.0.0"}
    missing = RequiredPackage("a", channel="stable", catalog="main", starting_csv="a.v0.1.0")
    answer = resolve(CatalogSet([catalog]), ResolutionRequest((missing,), rules="olm-v0"))
    assert (
        "no operators found with name a.v0.1.0 in channel stable of package a in the catalog "
        "referenced by subscription a"
    ) in " ".join(why_not(answer).split())


def test_dependency_catalog_order(make: MakeCatalog) -> None:
    """Row "dependency order": at one priority OLM v0 prefers a catalog in the namespace
    resolved over the name order deppy uses."""
    main = make([*simple_package("app", "1.0.0", props=[needs_package("dep", ">=1.0.0")])])
    alpha = make(simple_package("dep", "1.0.0"), name="alpha")
    zeta = make(simple_package("dep", "2.0.0"), name="zeta")
    spaces = [("main", "olm"), ("alpha", "olm"), ("zeta", "operators")]
    deppy, olm = both(
        [main, alpha, zeta], ["app"], namespace="operators", catalog_namespaces=spaces
    )
    assert [(s.catalog, s.version) for s in deppy.selection or () if s.package == "dep"] == [
        ("alpha", "1.0.0")
    ]
    assert [(s.catalog, s.version) for s in olm.selection or () if s.package == "dep"] == [
        ("zeta", "2.0.0")
    ]


def test_dependency_prefers_the_dependents_catalog_then_priority(make: MakeCatalog) -> None:
    main = make(
        [
            *simple_package("app", "1.0.0", props=[needs_package("dep", ">=1.0.0")]),
            *simple_package("dep", "1.0.0"),
        ]
    )
    high = make(simple_package("dep", "1.0.0"), name="high", priority=10)
    _, olm = both([main, high], ["app"])
    assert [s.catalog for s in olm.selection or () if s.package == "dep"] == ["main"]


def test_runtime_constraints_spare_installed_bundles(make: MakeCatalog) -> None:
    """Row "runtime constraints": OLM v0 leaves an installed CSV alone on a newer cluster."""
    catalog = make(simple_package("a", "1.0.0", props=[max_ocp("4.14")]))
    deppy, olm = both(catalog, [], ["a@1.0.0,channel=stable,catalog=main"], ocp="4.18")
    assert "OpenShift" in why_not(deppy)
    assert picked(olm) == {"a": "1.0.0"}


def test_unknown_catalog_of_a_subscription(make: MakeCatalog) -> None:
    catalog = make(simple_package("a", "1.0.0"))
    _, olm = both(catalog, ["a,catalog=nowhere"])
    assert "no operators found from catalog nowhere in namespace referenced by subscription a" in (
        " ".join(why_not(olm).split())
    )


def test_an_installed_bundle_in_a_channel_without_one_head(make: MakeCatalog) -> None:
    """OLM v0 resolves nothing for a Subscription whose channel it cannot sort: not even
    staying; its words are the explanation."""
    catalog = make(
        [package("a"), channel("a", "stable", "a.v1.0.0", "a.v2.0.0")]
        + [bundle("a", v) for v in ("1.0.0", "2.0.0")]
    )
    deppy, olm = both(catalog, [], ["a@1.0.0,channel=stable,catalog=main"])
    assert picked(deppy) == {"a": "1.0.0"}  # no edge from 1.0.0: it stays
    assert "2 replacement chains were found" in " ".join(why_not(olm).split())


def test_a_dependency_channel_olm_v0_cannot_sort_is_said(make: MakeCatalog) -> None:
    catalog = make(
        [
            *simple_package("app", "1.0.0", props=[needs_package("dep", ">=1.0.0")]),
            package("dep"),
            channel("dep", "stable", "dep.v1.0.0", "dep.v2.0.0"),
            bundle("dep", "1.0.0"),
            bundle("dep", "2.0.0"),
        ]
    )
    deppy, olm = both(catalog, ["app"])
    assert picked(deppy)["dep"] == "2.0.0"
    assert olm.selection is None
    assert any(w.startswith("OLM v0 stops this resolution: a unique replacement chain")
               for w in olm.warnings)  # fmt: skip


def test_request_file_subscriptions(tmp_path: Path) -> None:
    """The contract of /work/notes/olmv0-request-syntax.md: Subscriptions in a request file."""
    import yaml

    from deppy.errors import InputError
    from deppy.resolution.request_parsing import load_request_file

    def load(spec: dict[str, object]) -> object:
        path = tmp_path / "r.yaml"
        path.write_text(yaml.safe_dump({"spec": spec}))
        return load_request_file(path)

    request, catalogs = load(  # type: ignore[misc]
        {
            "rules": "olm-v0",
            "namespace": "operators",
            "catalogs": [
                {"name": "c", "path": "c"},
                {"name": "d", "path": "d", "namespace": "olm"},
            ],
            "constraints": [
                {
                    "required": {
                        "name": "a",
                        "catalog": "d",
                        "catalogNamespace": "olm",
                        "startingCSV": "a.v1",
                        "subscription": "sub-a",
                    }
                },
                {"installed": {"name": "b", "version": "1.0.0", "subscribed": False}},
            ],
        }
    )
    assert request.rules == "olm-v0" and request.namespace == "operators"
    assert request.catalog_namespaces == (("c", "operators"), ("d", "olm"))
    assert [c.namespace for c in catalogs] == ["operators", "olm"]
    (required,) = request.required
    assert (required.starting_csv, required.subscription) == ("a.v1", "sub-a")
    assert request.installed[0].held.endswith("exists and is not referenced by a subscription")
    bad = {
        "constraints": [{"required": {"name": "a", "catalog": "d", "catalogNamespace": "x"}}],
        "catalogs": [{"name": "d", "path": "d", "namespace": "olm"}],
    }
    with pytest.raises(InputError, match=r"spec.constraints\[0\].required.catalogNamespace: "
                       "catalog d is in namespace olm, not x"):  # fmt: skip
        load(bad)
    with pytest.raises(InputError, match=r"installed.subscribed: expected true or false"):
        load({"constraints": [{"installed": {"name": "b", "version": "1", "subscribed": "no"}}]})
    with pytest.raises(InputError, match=r"spec.rules: no rule set 'olmv1'"):
        load({"rules": "olmv1", "constraints": ["required(a)"]})


def test_a_missing_dependency_in_olm_v0_words(make: MakeCatalog) -> None:
    from tests.olm_builders import needs_api

    catalog = make(simple_package("app", "1.0.0", props=[needs_api("K", "g", "v")]))
    deppy, olm = both(catalog, ["app"])
    words = (
        "bundle app.v1.0.0 requires an operator providing an API with group: g, version: v, kind: K"
    )
    assert words in " ".join(why_not(olm).split())
    assert "OLM v0" not in why_not(deppy)


def test_an_empty_catalog_of_a_subscription(make: MakeCatalog) -> None:
    main = make(simple_package("a", "1.0.0"))
    empty = make(simple_package("other", "1.0.0"), name="empty")
    _, olm = both([main, empty], ["a,catalog=empty"])
    assert "no operators found in package a in the catalog referenced by subscription a" in (
        " ".join(why_not(olm).split())
    )


def test_an_unknown_olm_constraint_field_in_olm_v0_words(make: MakeCatalog) -> None:
    from tests.olm_builders import constraint

    unknown = constraint({"failureMessage": "unknown constraint", "unknown": {"foo": "bar"}})
    catalog = make(simple_package("app", "1.0.0", props=[unknown]))
    _, olm = both(catalog, ["app"])
    assert 'OLM v0: parse olm.constraint: json: unknown field "unknown"' in why_not(olm)
