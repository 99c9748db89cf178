"""``deppy search``: what matches, and in which order (tests/data/workflows/search has one
package per kind of match for the term "redis")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.workflows.search import search
from tests.workflow_helpers import WORKFLOWS, run

DATA = WORKFLOWS / "search"


@pytest.fixture(scope="module")
def catalogs() -> CatalogSet:
    return CatalogSet([load_catalog(DATA, name="search")])


def test_exact_then_prefix_then_substring_then_metadata_then_description(
    catalogs: CatalogSet,
) -> None:
    hits = search(catalogs, "redis")
    assert [h.package for h in hits] == [
        "redis",  # exact name
        "redis-operator",  # name prefix
        "my-redis-cluster",  # name contains
        "cache-tool",  # keyword (metadata tier, then by name)
        "store-api",  # provides the API kind Redis
        "vault-ui",  # display name
        "kv-store",  # description only
    ]
    assert [h.tier for h in hits] == [0, 1, 2, 3, 3, 3, 4]
    assert [h.what for h in hits[3:]] == ["keyword", "API", "display name", "description"]


def test_search_ignores_case_and_surrounding_space(catalogs: CatalogSet) -> None:
    assert [h.package for h in search(catalogs, "  REDIS ")] == [
        h.package for h in search(catalogs, "redis")
    ]


def test_bundle_names_and_api_groups_match(catalogs: CatalogSet) -> None:
    (hit,) = search(catalogs, "redis-operator.v1.0.0")
    assert (hit.package, hit.tier, hit.what, hit.bundles) == (
        "redis-operator",
        0,
        "bundle name",
        ("redis-operator.v1.0.0",),
    )
    (api,) = search(catalogs, "cache.example.com")
    assert api.package == "store-api" and api.matched == "Redis (cache.example.com/v1)"
    assert api.bundles == ("store-api.v3.0.0",)


def test_no_match_is_an_empty_list(catalogs: CatalogSet) -> None:
    assert search(catalogs, "postgres") == []
    assert search(catalogs, "   ") == []


def test_cli_table_is_ranked_and_aligned() -> None:
    code, out, _ = run("search", "redis", "--catalog", f"{DATA}=search")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["PACKAGE", "CATALOG", "LATEST", "DISPLAY", "NAME", "MATCH"]
    assert lines[1].split()[:3] == ["redis", "search", "7.0.0"]
    assert lines[1].endswith("exact name")
    assert lines[5].endswith("API: Redis (cache.example.com/v1)")
    assert all(line[lines[0].index("CATALOG") :].startswith("search") for line in lines[1:])


def test_cli_limit_json_and_nothing_found() -> None:
    code, out, _ = run("search", "redis", "--catalog", f"{DATA}=search", "--limit", "2")
    assert code == 0 and "… and 5 more (--limit 0 shows all)" in out
    code, out, _ = run("search", "redis", "--catalog", f"{DATA}=search", "-o", "json")
    assert code == 0
    first = json.loads(out)[0]
    assert first["package"] == "redis" and first["match"] == "exact name"
    code, out, _ = run("search", "postgres", "--catalog", f"{DATA}=search")
    assert code == 1 and out == "no package matches 'postgres'\n"


def test_words_match_at_their_start_never_inside_another_word(catalogs: CatalogSet) -> None:
    cluster = search(catalogs, "cluster")
    assert [(h.package, h.tier, h.what) for h in cluster] == [("my-redis-cluster", 2, "name")]
    assert search(catalogs, "edis") == []  # inside "redis": not a match
    assert search(catalogs, "dis") == []
    assert [h.package for h in search(catalogs, "compatible")] == ["kv-store"]  # "Redis-compatible"


LISTED = """\
schema: olm.package
name: beta-op
defaultChannel: stable
---
schema: olm.channel
package: beta-op
name: stable
entries: [{name: beta-op.v1.0.0}]
---
schema: olm.channel
package: beta-op
name: candidate
entries: [{name: beta-op.v1.0.0}, {name: beta-op.v1.1.0, replaces: beta-op.v1.0.0}]
---
schema: olm.bundle
name: beta-op.v1.0.0
package: beta-op
image: example.com/beta-op:1.0.0
properties:
  - {type: olm.package, value: {packageName: beta-op, version: 1.0.0}}
  - {type: olm.csv.metadata, value: {provider: {name: Example  Inc.}}}
---
schema: olm.bundle
name: beta-op.v1.1.0
package: beta-op
image: example.com/beta-op:1.1.0
properties:
  - {type: olm.package, value: {packageName: beta-op, version: 1.1.0}}
  - {type: olm.csv.metadata, value: {provider: {name: Someone else}}}
---
schema: olm.package
name: alpha-op
---
schema: olm.channel
package: alpha-op
name: alpha
entries: [{name: alpha-op.v0.1.0}]
---
schema: olm.bundle
name: alpha-op.v0.1.0
package: alpha-op
image: example.com/alpha-op:0.1.0
properties:
  - {type: olm.package, value: {packageName: alpha-op, version: 0.1.0}}
"""


def test_search_without_a_term_lists_every_package(tmp_path: Path) -> None:
    """Like ``kubectl operator olmv1 search catalog``: every package, its channels, default
    channel and provider (the default channel's newest bundle speaks for the package)."""
    (tmp_path / "listed").mkdir()
    (tmp_path / "listed" / "catalog.yaml").write_text(LISTED)
    where = ("--catalog", f"{tmp_path / 'listed'}=listed")
    code, out, _ = run("search", *where)
    assert code == 0
    assert out.splitlines() == [
        "PACKAGE   CATALOG  CHANNELS          DEFAULT CHANNEL  PROVIDER",
        "alpha-op  listed   alpha             -                -",
        "beta-op   listed   candidate,stable  stable           Example Inc.",
    ]
    code, out, _ = run("search", *where, "-o", "json")
    assert code == 0
    assert json.loads(out)[1] == {
        "package": "beta-op",
        "catalog": "listed",
        "channels": ["candidate", "stable"],
        "defaultChannel": "stable",
        "provider": "Example Inc.",
        "latest": "1.0.0",
    }
    code, yaml_out, _ = run("search", *where, "-o", "yaml")
    assert code == 0 and "defaultChannel: stable" in yaml_out
    assert run("search", *where, "-o", "name")[1] == "alpha-op\nbeta-op\n"
    code, out, _ = run("search", *where, "--limit", "1")
    assert code == 0 and out.splitlines()[-1] == "… and 1 more (--limit 0 shows all)"
    # every package, not the first 30 a term's hits stop at
    code, out, _ = run("search", "--catalog", f"{DATA}=search", "-o", "name")
    assert out.split() == sorted(out.split()) and len(out.split()) == 8
