"""Why a ClusterExtension gets no bundle, and the ways out deppy offers for it (issue 36): a
selector that chooses no catalog or only an Unavailable one answered as OLM v1 answers it,
ways out ranked by how little of the request they change (the same order in text and JSON),
the nearest versions on both sides, close package names only, advice where SelfCertified
cannot help, and a new ClusterExtension where OLM v1 refuses the edit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from deppy.cli.main import cli, register_commands
from tests.olm_builders import (
    bundle,
    channel,
    entry,
    needs_api,
    package,
    simple_package,
    write_catalog,
)
from tests.olmv1_objects import cluster_catalog, cluster_extension

register_commands()

NAME_LABEL = "olm.operatorframework.io/metadata.name"


def run(tmp_path: Path, docs: list[dict[str, Any]], *args: str) -> tuple[int, str, str]:
    path = tmp_path / "request.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    result = CliRunner().invoke(cli, ["resolve", "-f", str(path), *args])
    return result.exit_code, result.stdout, result.stderr


def chain(tmp_path: Path, name: str, *versions: str, pkg: str = "pkg") -> str:
    """``--catalog`` for a catalog whose versions of ``pkg`` form one replaces chain in
    channel stable; channel fast holds the newest only."""
    objs = [*simple_package(pkg, *versions), channel(pkg, "fast", entry(f"{pkg}.v{versions[-1]}"))]
    return f"{write_catalog(tmp_path / name, objs)}={name}"


def ways_out(out: str) -> list[str]:
    """The "Try:" lines of the one-screen text, each way out on one line."""
    lines = out.split("Try:", 1)[1].split("\n(", 1)[0]
    items = [line.strip() for line in lines.replace("\n    ", " ").splitlines() if line.strip()]
    return [item.removeprefix("- ") for item in items]


def flat(text: str) -> str:
    """Text with its wrapped lines joined."""
    return " ".join(text.split())


def json_ways_out(tmp_path: Path, docs: list[dict[str, Any]], *args: str) -> list[dict[str, Any]]:
    code, out, _ = run(tmp_path, docs, *args, "-o", "json")
    assert code == 1, out
    suggestions: list[dict[str, Any]] = json.loads(out)["explanation"]["suggestions"]
    return suggestions


def test_a_selector_that_matches_no_clustercatalog_is_answered_as_olm_v1_answers(
    tmp_path: Path,
) -> None:
    """OLM v1 walks no catalog and finds no bundle (exit 1, not bad input); the ways out name a
    catalog that has the package, or drop the selector."""
    main = chain(tmp_path, "main", "1.0.0")
    other = chain(tmp_path, "other", "1.0.0", pkg="else")
    doc = cluster_extension("ext", "pkg", None, selector={"matchLabels": {"env": "prod"}})
    code, out, err = run(tmp_path, [doc], "--catalog", main, "--catalog", other)
    assert code == 1, err
    assert 'the selector matches no ClusterCatalog, so no bundles found for package "pkg"' in flat(
        out
    )
    changes = [
        s["change"] for s in json_ways_out(tmp_path, [doc], "--catalog", main, "--catalog", other)
    ]
    assert changes == [
        {"kind": "change-extension", "index": 0, "extension": "ext",
         "field": "spec.source.catalog.selector", "value": {"matchLabels": {NAME_LABEL: "main"}}},
        {"kind": "change-extension", "index": 0, "extension": "ext",
         "field": "spec.source.catalog.selector", "value": None},
    ]  # fmt: skip
    doc["spec"]["source"]["catalog"]["selector"] = {"matchLabels": {NAME_LABEL: "main"}}
    assert run(tmp_path, [doc], "--catalog", main, "--catalog", other)[0] == 0


def test_a_selector_that_matches_only_an_unavailable_clustercatalog_says_so(
    tmp_path: Path,
) -> None:
    main = chain(tmp_path, "main", "1.0.0")
    docs = [
        cluster_catalog("main", available=False),
        cluster_extension("ext", "pkg", None, selector={"matchLabels": {NAME_LABEL: "main"}}),
    ]
    code, out, _ = run(tmp_path, docs, "--catalog", main)
    assert code == 1
    assert "ClusterCatalog main is Unavailable" in flat(out)
    assert "no ClusterCatalog was selected" not in out
    assert ways_out(out) == ['set spec.availabilityMode: "Available" in ClusterCatalog main']
    (way,) = json_ways_out(tmp_path, docs, "--catalog", main)
    assert way["change"] == {
        "kind": "change-catalog",
        "catalog": "main",
        "field": "spec.availabilityMode",
        "value": "Available",
    }
    docs[0]["spec"]["availabilityMode"] = "Available"
    assert run(tmp_path, docs, "--catalog", main)[0] == 0


def test_ways_out_that_keep_what_was_asked_come_first_in_text_as_in_json(tmp_path: Path) -> None:
    """A downgrade under CatalogProvided: SelfCertified keeps the version asked, so it leads
    (it was shown last, and cut from a full screen); the same order in JSON."""
    main = chain(tmp_path, "main", "0.4.0", "0.4.1", "0.5.0", "0.6.0")
    doc = cluster_extension("ext", "pkg", "0.6.0", version="<0.6.0")
    code, out, _ = run(tmp_path, [doc], "--catalog", main)
    assert code == 1
    shown = ways_out(out)
    assert shown[0].startswith('set spec.source.catalog.upgradeConstraintPolicy: "SelfCertified"')
    listed = json_ways_out(tmp_path, [doc], "--catalog", main)
    assert listed[0]["change"]["value"] == "SelfCertified"
    assert "downgrade to pkg 0.5.0" in listed[0]["text"]
    assert [s["change"]["field"] for s in listed][: len(shown)] == [
        "spec.source.catalog." + line.split("spec.source.catalog.")[1].split(":")[0]
        for line in shown
    ]


def test_the_channel_that_has_the_version_leads(tmp_path: Path) -> None:
    main = chain(tmp_path, "main", "0.4.0", "0.4.1", "0.5.0", "0.6.0")
    doc = cluster_extension("ext", "pkg", None, version="0.4.1", channels=["fast"])
    code, out, _ = run(tmp_path, [doc], "--catalog", main)
    assert code == 1
    assert ways_out(out)[0].startswith('set spec.source.catalog.channels: ["stable"]')


def test_version_ways_out_are_the_nearest_on_both_sides(tmp_path: Path) -> None:
    main = chain(tmp_path, "main", "0.4.0", "0.4.1", "0.5.0", "0.6.0")
    doc = cluster_extension("ext", "pkg", None, version="0.4.2")
    listed = json_ways_out(tmp_path, [doc], "--catalog", main)
    values = [s["change"]["value"] for s in listed]
    assert values == ["0.4.1", "0.5.0", None]  # None: remove the constraint
    assert "0.6.0" not in values


@pytest.mark.parametrize(
    ("names", "asked", "meant"),
    [
        (("argocd-operator", "etcd-operator", "grafana-operator"), "argocd-operatr",
         "argocd-operator"),
        (("ack-s3-controller", "ack-ssm-controller", "ack-sqs-controller"), "ack-s3-controllr",
         "ack-s3-controller"),
    ],
)  # fmt: skip
def test_package_name_ways_out_are_close_matches_only(
    tmp_path: Path, names: tuple[str, ...], asked: str, meant: str
) -> None:
    """Neither a search hit on a word of the name ("operator") nor a name sharing a long
    suffix is the package meant."""
    objs = []
    for name in names:
        objs += [package(name, "stable"), channel(name, "stable", entry(f"{name}.v1.0.0"))]
        objs.append(bundle(name, "1.0.0"))
    catalog = f"{write_catalog(tmp_path / 'main', objs)}=main"
    doc = cluster_extension("ext", asked, None)
    values = [s["change"]["value"] for s in json_ways_out(tmp_path, [doc], "--catalog", catalog)]
    assert values == [meant]


def test_selfcertified_that_needs_an_api_no_catalog_has_is_explained(tmp_path: Path) -> None:
    """SelfCertified would let OLM v1 pick 1.0.0, but 1.0.0 needs an API nothing provides: the
    way out would never resolve, and deppy says why it does not offer it."""
    objs = [
        package("pkg", "stable"),
        channel("pkg", "stable", entry("pkg.v1.0.0"), entry("pkg.v1.1.0", "pkg.v1.0.0")),
        bundle("pkg", "1.0.0", needs_api("Widget")),
        bundle("pkg", "1.1.0"),
    ]
    catalog = f"{write_catalog(tmp_path / 'main', objs)}=main"
    doc = cluster_extension("ext", "pkg", "1.1.0", version="<1.1.0")
    code, out, _ = run(tmp_path, [doc], "--catalog", catalog, "-v")
    assert code == 1
    assert "SelfCertified is no way out for ClusterExtension ext" in out
    assert "API Widget (example.com/v1)" in out and "which no catalog provides" in out
    assert 'upgradeConstraintPolicy: "SelfCertified"' not in out


def test_an_installed_extension_gets_a_new_clusterextension_not_an_edit(tmp_path: Path) -> None:
    """packageName is immutable once installed: the way out is a new ClusterExtension."""
    catalog = chain(tmp_path, "main", "1.0.0", pkg="argocd-operator")
    doc = cluster_extension("ext", "argocd-operatr", "0.9.0")
    code, out, _ = run(tmp_path, [doc], "--catalog", catalog, "-v")
    assert code == 1
    assert "set spec.source.catalog.packageName" not in out
    assert (
        "create ClusterExtension argocd-operator with spec.source.catalog.packageName: "
        '"argocd-operator" (installed ClusterExtension ext cannot change packageName' in out
    )
    (way,) = json_ways_out(tmp_path, [doc], "--catalog", catalog)
    assert way["change"]["kind"] == "new-extension"
    assert way["change"]["name"] == "argocd-operator"
