"""``deppy resolve -f FILE`` with OLM v1 objects: answers, ways out, and bad input (exit 2,
one line naming the document and the field)."""

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
    deprecations,
    entry,
    needs_package,
    package,
    write_catalog,
)
from tests.olmv1_objects import cluster_extension

register_commands()

SHARED = Path(__file__).resolve().parents[2] / "shared"
ARGOCD = SHARED / "olm-v1" / "examples" / "clusterextension-argocd.yaml"
COMMUNITY = SHARED / "catalogs" / "community-operators-prod-v4.18"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["resolve", *args])
    return result.exit_code, result.stdout, result.stderr


def catalog_dir(tmp_path: Path, name: str, *versions: str, pkg: str = "pkg") -> str:
    """A catalog whose versions form one replaces chain in channel stable; 1.0.1 deprecated."""
    entries = []
    previous = None
    for version in versions:
        entries.append(entry(f"{pkg}.v{version}", previous))
        previous = f"{pkg}.v{version}"
    objs = [
        package(pkg, "stable"),
        channel(pkg, "stable", *entries),
        channel(pkg, "fast", entry(f"{pkg}.v{versions[-1]}")),
        *(bundle(pkg, v) for v in versions),
        deprecations(pkg, ("olm.bundle", f"{pkg}.v1.0.1", "old")),
    ]
    return f"{write_catalog(tmp_path / name, objs)}={name}"


def extension(installed: str | None = None, **catalog: Any) -> dict[str, Any]:
    """ClusterExtension "ext" of package "pkg" (installed at ``installed``, if given)."""
    return cluster_extension("ext", "pkg", installed, namespace="ns", **catalog)


def write(tmp_path: Path, *docs: dict[str, Any]) -> str:
    path = tmp_path / "request.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    return str(path)


def test_a_clusterextension_file_resolves(tmp_path: Path) -> None:
    catalog = catalog_dir(tmp_path, "main", "1.0.0", "1.0.1", "1.1.0")
    code, out, _ = run("-f", write(tmp_path, extension(version="~1.0")), "--catalog", catalog)
    assert code == 0, out
    assert "pkg      1.0.0" in out  # ~1.0: 1.0.1 is deprecated, 1.0.0 is not
    assert "ClusterExtension ext" in out


def test_an_upgrade_is_one_direct_step(tmp_path: Path) -> None:
    catalog = catalog_dir(tmp_path, "main", "1.0.0", "1.0.1", "1.1.0")
    file = write(tmp_path, extension(installed="1.0.1"))
    code, out, _ = run("-f", file, "--catalog", catalog, "-o", "json")
    assert code == 0
    (item,) = json.loads(out)["selection"]
    assert (item["version"], item["action"], item["path"]) == (
        "1.1.0",
        "upgrade",
        ["pkg.v1.0.1", "pkg.v1.1.0"],
    )


def test_the_sample_clusterextension_and_a_way_out_deppy_saw_work() -> None:
    """operator-controller's own sample asks argocd-operator 0.6.0, which the shared community
    catalog does not have: OLM v1's message, per-catalog figures, and versions that resolve."""
    if not COMMUNITY.is_dir():
        pytest.skip(f"no shared catalog at {COMMUNITY}")
    code, out, _ = run("-f", str(ARGOCD), "--catalog", f"{COMMUNITY}=operatorhubio", "-v")
    assert code == 1
    assert 'no bundles found for package "argocd-operator" matching version "0.6.0"' in out
    assert "catalog operatorhubio (priority 0): " in out
    # the nearest versions on both sides of 0.6.0, not the newest
    assert 'set spec.source.catalog.version: "0.5.0" in ClusterExtension argocd' in out
    assert 'set spec.source.catalog.version: "0.7.0" in ClusterExtension argocd' in out


def test_a_tie_suggests_a_selector_naming_one_catalog(tmp_path: Path) -> None:
    a = catalog_dir(tmp_path, "a", "1.0.0")
    b = catalog_dir(tmp_path, "b", "1.0.0")
    code, out, _ = run("-f", write(tmp_path, extension()), "--catalog", a, "--catalog", b, "-v")
    assert code == 1
    assert "in multiple catalogs with the same priority [a b]" in out
    label = '{"matchLabels": {"olm.operatorframework.io/metadata.name": "a"}}'
    assert f"set spec.source.catalog.selector: {label}" in out


def test_only_a_downgrade_helps_suggests_selfcertified(tmp_path: Path) -> None:
    catalog = catalog_dir(tmp_path, "main", "1.0.0", "1.0.1", "1.1.0")
    file = write(tmp_path, extension(installed="1.1.0", version="<1.1.0"))
    code, out, _ = run("-f", file, "--catalog", catalog, "-v")
    assert code == 1
    assert 'error upgrading from currently installed version "1.1.0"' in out
    assert 'set spec.source.catalog.upgradeConstraintPolicy: "SelfCertified"' in out
    assert "downgrade to pkg 1.0.0" in out


def test_clustercatalog_priority_and_availability(tmp_path: Path) -> None:
    a = catalog_dir(tmp_path, "a", "1.0.0")
    b = catalog_dir(tmp_path, "b", "1.0.0", "1.0.1", "2.0.0")
    high = {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterCatalog",
        "metadata": {"name": "a"},
        "spec": {"priority": 5, "source": {"type": "Image", "image": {"ref": "x"}}},
    }
    file = write(tmp_path, high, extension())
    code, out, _ = run("-f", file, "--catalog", a, "--catalog", b, "-o", "json")
    assert code == 0
    assert json.loads(out)["selection"][0]["catalog"] == "a"
    high["spec"]["availabilityMode"] = "Unavailable"
    file = write(tmp_path, high, extension())
    code, out, err = run("-f", file, "--catalog", a, "--catalog", b, "-o", "json")
    assert code == 0
    assert json.loads(out)["selection"][0]["catalog"] == "b"
    assert "ClusterCatalog a is Unavailable: not used" in err


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (
            {"spec": {"source": {"sourceType": "Image"}}},
            "spec.source.sourceType",
            "unknown sourceType",
        ),
        ({"catalog": {"packageName": None}}, "spec.source.catalog.packageName", "required field"),
        ({"catalog": {"version": "==1.2.3"}}, "spec.source.catalog.version", '"==" is not'),
        ({"catalog": {"version": "!1.2.3"}}, "spec.source.catalog.version", '"!" alone'),
        (
            {"catalog": {"upgradeConstraintPolicy": "Sometimes"}},
            "spec.source.catalog.upgradeConstraintPolicy",
            "unknown policy",
        ),
        (
            {"catalog": {"selector": {"matchExpressions": [{"key": "a", "operator": "Is"}]}}},
            "spec.source.catalog.selector.matchExpressions[0].operator",
            "not a valid label selector operator",
        ),
        ({"catalog": {"channels": "stable"}}, "spec.source.catalog.channels", "expected a list"),
        (
            {"catalog": {"channel": "stable"}},
            "spec.source.catalog.channel",
            "did you mean 'channels'",
        ),
        (
            {"status": {"install": {"bundle": {"name": "pkg.v1", "version": "v1"}}}},
            "status.install.bundle.version",
            "invalid version",
        ),
    ],
)
def test_bad_input_exits_2_naming_the_field(
    tmp_path: Path, change: dict[str, Any], field: str, words: str
) -> None:
    doc = extension()
    if "catalog" in change:
        doc["spec"]["source"]["catalog"].update(change["catalog"])
        doc["spec"]["source"]["catalog"] = {
            k: v for k, v in doc["spec"]["source"]["catalog"].items() if v is not None
        }
    elif "spec" in change:
        doc["spec"]["source"]["sourceType"] = change["spec"]["source"]["sourceType"]
    else:
        doc.update(change)
    catalog = catalog_dir(tmp_path, "main", "1.0.0")
    code, out, err = run("-f", write(tmp_path, doc), "--catalog", catalog)
    assert code == 2, out
    assert err.startswith(
        f"deppy: error: {tmp_path / 'request.yaml'}: ClusterExtension ext: {field}"
    )
    assert words in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def dependency_catalog(tmp_path: Path) -> str:
    objs = [
        package("app", "stable"),
        channel("app", "stable", entry("app.v1.0.0")),
        bundle("app", "1.0.0", needs_package("db", ">=2.0.0")),
        package("db", "stable"),
        channel("db", "stable", entry("db.v2.0.0"), entry("db.v2.1.0", "db.v2.0.0")),
        bundle("db", "2.0.0"),
        bundle("db", "2.1.0"),
    ]
    return f"{write_catalog(tmp_path / 'main', objs)}=main"


def test_dependencies_olm_v1_refuses_are_resolved_and_planned(tmp_path: Path) -> None:
    """OLM v1 refuses a bundle declaring olm.package.required; deppy resolves it, says which
    package the plan adds and that OLM v1 refuses the one asked for as written (OLM v1's own
    message, exit 3), and writes one pinned ClusterExtension per package, dependencies first,
    in the requester's namespace with its service account."""
    doc = extension()
    doc["spec"]["source"]["catalog"]["packageName"] = "app"
    file = write(tmp_path, doc)
    catalog = dependency_catalog(tmp_path)
    code, out, err = run("-f", file, "--catalog", catalog)
    assert code == 3
    refusal = (
        'validating bundle "app.v1.0.0": bundle "app.v1.0.0" has a dependency declared via '
        'property "olm.package.required" which is currently not supported'
    )
    assert refusal in " ".join(err.split())
    assert "the plan needs packages no ClusterExtension asks for: db" in err
    code, out, _ = run("-f", file, "--catalog", catalog, "-o", "clusterextensions")
    assert code == 3
    first, second = yaml.safe_load_all(out)
    assert first["metadata"] == {
        "name": "db",
        "annotations": {"deppy.io/required-by": "ext", "deppy.io/installs-as-written": "true"},
    }
    assert first["spec"] == {
        "namespace": "ns",
        "serviceAccount": {"name": "installer"},
        "source": {
            "sourceType": "Catalog",
            "catalog": {
                "packageName": "db",
                "version": "2.1.0",
                "selector": {"matchLabels": {"olm.operatorframework.io/metadata.name": "main"}},
            },
        },
    }
    assert (second["metadata"]["name"], second["spec"]["source"]["catalog"]["version"]) == (
        "ext",
        "1.0.0",
    )
    assert second["metadata"]["annotations"] == {
        "deppy.io/installs-as-written": "false",
        "deppy.io/olm-v1-refusal": refusal,
    }
    # -o json says the same, per ClusterExtension
    code, out, _ = run("-f", file, "--catalog", catalog, "-o", "json")
    assert code == 3
    olmv1 = json.loads(out)["olmv1"]
    assert olmv1["installsAsWritten"] is False
    assert [(e["name"], e["installsAsWritten"]) for e in olmv1["extensions"]] == [
        ("db", True),
        ("ext", False),
    ]
    assert olmv1["extensions"][1]["refusal"]["message"] == refusal
    assert "--resolved-catalog" in olmv1["wayOut"]
    # each is a ClusterExtension deppy itself reads back and resolves to the same answer
    code, again, _ = run("-f", write(tmp_path, first, second), "--catalog", catalog, "-o", "json")
    assert code == 3
    assert [(s["package"], s["version"]) for s in json.loads(again)["selection"]] == [
        ("db", "2.1.0"),
        ("app", "1.0.0"),
    ]


def test_a_plan_keeps_what_the_request_wrote_and_needs_no_service_account(
    tmp_path: Path,
) -> None:
    """OLM v1's own sample has no serviceAccount (deprecated and ignored): the plan needs none
    and invents none; labels, annotations, install.preflight, channels and the policy come back
    as written; only the version pin, the selector and deppy's annotations change."""
    doc: dict[str, Any] = {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterExtension",
        "metadata": {
            "name": "argocd",
            "labels": {"team": "platform"},
            "annotations": {"owner": "alice"},
            "resourceVersion": "12",
            "uid": "u-1",
        },
        "spec": {
            "namespace": "argocd",
            "install": {"preflight": {"crdUpgradeSafety": {"enforcement": "None"}}},
            "source": {
                "sourceType": "Catalog",
                "catalog": {
                    "packageName": "pkg",
                    "version": ">=1.0.0",
                    "channels": ["stable"],
                    "upgradeConstraintPolicy": "SelfCertified",
                },
            },
        },
    }
    catalog = catalog_dir(tmp_path, "main", "1.0.0", "1.1.0")
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "argocd"}}
    code, out, err = run(
        "-f", write(tmp_path, namespace, doc), "--catalog", catalog, "-o", "clusterextensions"
    )
    assert code == 0, err
    (plan,) = yaml.safe_load_all(out)
    assert plan["metadata"] == {
        "name": "argocd",
        "labels": {"team": "platform"},
        "annotations": {"owner": "alice", "deppy.io/installs-as-written": "true"},
    }
    assert "serviceAccount" not in plan["spec"]
    assert plan["spec"]["install"] == doc["spec"]["install"]
    assert plan["spec"]["source"]["catalog"] == {
        "packageName": "pkg",
        "version": "1.1.0",
        "channels": ["stable"],
        "upgradeConstraintPolicy": "SelfCertified",
        "selector": {"matchLabels": {"olm.operatorframework.io/metadata.name": "main"}},
    }


def test_a_plan_without_namespace_names_the_flag(tmp_path: Path) -> None:
    doc = extension()
    del doc["spec"]["namespace"]
    file = write(tmp_path, doc)
    catalog = catalog_dir(tmp_path, "main", "1.0.0")
    code, _, err = run("-f", file, "--catalog", catalog, "-o", "clusterextensions")
    assert code == 2
    assert "give --install-namespace" in err
    code, out, _ = run(
        "-f", file, "--catalog", catalog, "-o", "clusterextensions", "--install-namespace", "x"
    )
    assert code == 0
    assert yaml.safe_load(out)["spec"]["namespace"] == "x"


def upgrades(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["upgrades", *args])
    return result.exit_code, result.stdout, result.stderr


def test_upgrades_under_each_policy_with_the_path(tmp_path: Path) -> None:
    """CatalogProvided: one direct successor per reconciliation, so 1.0.0 reaches 1.1.0 in two
    (1.0.2 replaces 1.0.0, 1.1.0 replaces 1.0.2); SelfCertified: straight to the best in range."""
    catalog = catalog_dir(tmp_path, "main", "1.0.0", "1.0.2", "1.1.0")
    chained = extension(installed="1.0.0")
    direct = extension(installed="1.0.0", upgradeConstraintPolicy="SelfCertified")
    direct["metadata"]["name"] = "free"
    code, out, _ = upgrades(
        "-f", write(tmp_path, chained, direct), "--catalog", catalog, "-o", "json"
    )
    assert code == 0
    first, second = json.loads(out)
    assert (first["policy"], first["next"]["version"]) == ("CatalogProvided", "1.0.2")
    assert [b["version"] for b in first["path"]] == ["1.0.2", "1.1.0"]
    assert (second["policy"], [b["version"] for b in second["path"]]) == (
        "SelfCertified",
        ["1.1.0"],
    )
    code, out, _ = upgrades("-f", write(tmp_path, chained), "--catalog", catalog)
    assert code == 0
    assert "next: 1.0.2 (pkg.v1.0.2, catalog main)" in out
    assert "path: 1.0.0 → 1.0.2 → 1.1.0 (2 reconciliations)" in out


def test_a_cluster_supplies_clustercatalogs_and_installed_bundles(tmp_path: Path) -> None:
    """--cluster (an export: kubectl get -o yaml output) with a ClusterExtension file: the
    cluster's ClusterCatalogs give labels and priority, its ClusterExtension of the same name
    the installed bundle; kubectl's List of objects is read as its items."""
    a = catalog_dir(tmp_path, "a", "1.0.0", "1.0.2")
    b = catalog_dir(tmp_path, "b", "1.0.0", "1.0.2", "2.0.0")
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    catalogs = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "apiVersion": "olm.operatorframework.io/v1",
                "kind": "ClusterCatalog",
                "metadata": {"name": name, "labels": {"tier": tier}},
                "spec": {"priority": priority, "source": {"type": "Image"}},
            }
            for name, tier, priority in (("a", "gold", 10), ("b", "bronze", 0))
        ],
    }
    installed = extension(installed="1.0.0")
    (cluster / "catalogs.yaml").write_text(yaml.safe_dump(catalogs), encoding="utf-8")
    (cluster / "extensions.yaml").write_text(yaml.safe_dump(installed), encoding="utf-8")
    asked = extension()  # no status: the cluster's ClusterExtension "ext" has it
    file = write(tmp_path, asked)
    args = ("-f", file, "--cluster", str(cluster), "--catalog", a, "--catalog", b, "-o", "json")
    code, out, _ = run(*args)
    assert code == 0, out
    (item,) = json.loads(out)["selection"]
    assert (item["catalog"], item["version"], item["action"]) == ("a", "1.0.2", "upgrade")
    asked["spec"]["source"]["catalog"]["selector"] = {"matchLabels": {"tier": "bronze"}}
    code, out, _ = run("-f", write(tmp_path, asked), *args[2:])
    assert code == 0, out
    (item,) = json.loads(out)["selection"]
    assert (item["catalog"], item["version"]) == ("b", "1.0.2")  # a direct successor, not 2.0.0


@pytest.mark.parametrize("version", ["~1.0", "~9.0"])
def test_a_recorded_olm_v1_resolution_replays_to_the_same_answer(
    tmp_path: Path, version: str
) -> None:
    """--trace records the ClusterExtension's terms (they used to have no JSON form: a
    traceback); deppy replay gives the same answer or explanation."""
    catalog = catalog_dir(tmp_path, "main", "1.0.0", "1.0.2", "1.1.0")
    trace = tmp_path / "trace.jsonl"
    file = write(tmp_path, extension(version=version, installed="1.0.0"))
    code, out, _ = run("-f", file, "--catalog", catalog, "--trace", str(trace), "-o", "json")
    assert code in (0, 1)
    replayed = CliRunner().invoke(cli, ["replay", str(trace), "-o", "json"])
    assert replayed.exit_code == code
    # byte for byte, the catalog's load problems (1 invalid object) and the ClusterExtension's
    # notes included: the trace keeps what resolve added to its answer for the replay
    assert replayed.stdout == out
    assert any("deppy catalog problems" in w for w in json.loads(out)["warnings"])


def test_upgrades_of_a_clusters_clusterextensions(tmp_path: Path) -> None:
    """deppy upgrades -f FILE --cluster: the installed bundle from the cluster's ClusterExtension
    of the same name, the ClusterCatalogs' priorities from the cluster."""
    low = catalog_dir(tmp_path, "low", "1.0.0", "1.0.2", "1.1.0")
    high = catalog_dir(tmp_path, "high", "1.0.0", "1.0.2")
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    objects = [
        {
            "apiVersion": "olm.operatorframework.io/v1",
            "kind": "ClusterCatalog",
            "metadata": {"name": "high"},
            "spec": {"priority": 5, "source": {"type": "Image"}},
        },
        extension(installed="1.0.0"),
    ]
    (cluster / "objects.yaml").write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    file = write(tmp_path, extension())  # no status: the cluster's says 1.0.0
    args = ("-f", file, "--cluster", str(cluster), "--catalog", low, "--catalog", high)
    code, out, _ = upgrades(*args, "-o", "json")
    assert code == 0
    (report,) = json.loads(out)
    assert report["installed"] == {"name": "pkg.v1.0.0", "version": "1.0.0"}
    assert [(b["version"], b["catalog"]) for b in report["path"]] == [("1.0.2", "high")]


def test_a_misnamed_package_suggests_the_packagename_meant(tmp_path: Path) -> None:
    catalog = catalog_dir(tmp_path, "main", "1.0.0")
    doc = extension()
    doc["spec"]["source"]["catalog"]["packageName"] = "pkk"
    code, out, _ = run("-f", write(tmp_path, doc), "--catalog", catalog)
    assert code == 1
    assert 'no bundles found for package "pkk"' in out
    assert 'set spec.source.catalog.packageName: "pkg" in ClusterExtension ext' in out


def test_a_dependency_that_cannot_be_met_moves_to_the_next_candidate(tmp_path: Path) -> None:
    """OLM v1 would pick app 2.0.0 and fail on its dependency; deppy takes the winning
    catalog's next candidate and says what ruled out the newer one."""
    objs = [
        package("app", "stable"),
        channel("app", "stable", entry("app.v1.0.0"), entry("app.v2.0.0", "app.v1.0.0")),
        bundle("app", "1.0.0"),
        bundle("app", "2.0.0", needs_package("db", ">=5.0.0")),
    ]
    catalog = f"{write_catalog(tmp_path / 'main', objs)}=main"
    doc = extension()
    doc["spec"]["source"]["catalog"]["packageName"] = "app"
    code, out, err = run("-f", write(tmp_path, doc), "--catalog", catalog, "-o", "json")
    assert code == 0
    (item,) = json.loads(out)["selection"]
    assert item["version"] == "1.0.0"
    assert "not the preferred 2.0.0" in err and "db >=5.0.0" in err


def test_without_catalog_flags_the_stored_catalogs_are_the_clustercatalogs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As for deppy's own requests, no --catalog means the stored catalogs (here none: the
    embedded example), each a ClusterCatalog of its name and priority."""
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    doc = extension()
    doc["spec"]["source"]["catalog"]["packageName"] = "prometheus-operator"
    doc["spec"]["source"]["catalog"]["version"] = "~0.65"
    code, out, _ = run("-f", write(tmp_path, doc), "-o", "json")
    assert code == 0
    (item,) = json.loads(out)["selection"]
    assert (item["version"], item["catalog"]) == ("0.65.1", "embedded")


def test_upgrades_stop_where_olm_v1_refuses_a_bundle_with_a_dependency(tmp_path: Path) -> None:
    """OLM v1 chooses 1.1.0 after 1.0.2, then refuses it (it declares olm.package.required) and
    does not fall back: the path stops at 1.0.2, with OLM v1's message and the way out."""
    objs = [
        package("pkg", "stable"),
        channel(
            "pkg",
            "stable",
            entry("pkg.v1.0.0"),
            entry("pkg.v1.0.2", "pkg.v1.0.0"),
            entry("pkg.v1.1.0", "pkg.v1.0.2"),
        ),
        bundle("pkg", "1.0.0"),
        bundle("pkg", "1.0.2"),
        bundle("pkg", "1.1.0", needs_package("db", ">=2.0.0")),
        package("db", "stable"),
        channel("db", "stable", entry("db.v2.0.0")),
        bundle("db", "2.0.0"),
    ]
    catalog = f"{write_catalog(tmp_path / 'main', objs)}=main"
    file = write(tmp_path, extension(installed="1.0.0"))
    code, out, _ = upgrades("-f", file, "--catalog", catalog)
    assert code == 0
    assert "path: 1.0.0 → 1.0.2 (1 reconciliation)" in out
    assert (
        'stops after 1.0.2: OLM v1 chooses 1.1.0 and refuses it: validating bundle "pkg.v1.1.0": '
        'bundle "pkg.v1.1.0" has a dependency declared via property "olm.package.required" '
        "which is currently not supported"
    ) in out
    assert "--resolved-catalog" in out
    code, out, _ = upgrades("-f", file, "--catalog", catalog, "-o", "json")
    (report,) = json.loads(out)
    assert [step["version"] for step in report["path"]] == ["1.0.2"]
    assert report["refused"]["version"] == "1.1.0"
    assert report["refused"]["refusal"]["property"] == "olm.package.required"


def test_upgrades_offer_resolves_ways_out_where_olm_v1_finds_no_bundle(tmp_path: Path) -> None:
    """Two catalogs at one priority (issue 40): upgrades printed OLM v1's error, exited 0 and
    offered nothing, while resolve offered a selector naming either catalog. The same ways out
    now, and resolve's exit status; each way out, applied, gives an upgrade."""
    a = catalog_dir(tmp_path, "a", "1.0.0", "1.1.0")
    b = catalog_dir(tmp_path, "b", "1.0.0", "1.1.0")
    file = write(tmp_path, extension(installed="1.0.0"))
    resolved, out, _ = run("-f", file, "--catalog", a, "--catalog", b, "-o", "json")
    offered = json.loads(out)["explanation"]["suggestions"]
    code, out, _ = upgrades("-f", file, "--catalog", a, "--catalog", b, "-o", "json")
    assert code == resolved == 1
    (report,) = json.loads(out)
    assert "multiple catalogs with the same priority [a b]" in report["error"]
    assert report["suggestions"] == offered and len(offered) == 2
    code, text, _ = upgrades("-f", file, "--catalog", a, "--catalog", b)
    assert code == 1
    assert "\n  try:\n" in text
    for way in offered:
        assert f"    - {way['text']}\n" in text
        selector = way["change"]["value"]
        chosen = extension(installed="1.0.0", selector=selector)
        code, out, _ = upgrades(
            "-f", write(tmp_path, chosen), "--catalog", a, "--catalog", b, "-o", "json"
        )
        assert code == 0
        (moved,) = json.loads(out)
        picked = selector["matchLabels"]["olm.operatorframework.io/metadata.name"]
        assert moved["next"] == {"name": "pkg.v1.1.0", "version": "1.1.0", "catalog": picked}


BAD_METADATA = {
    "annotations a string": ("{name: x, annotations: oops}", "metadata.annotations"),
    "annotations a number": ("{name: x, annotations: 7}", "metadata.annotations"),
    "annotations a list": ("{name: x, annotations: [a, b]}", "metadata.annotations"),
    "a label a list": ("{name: x, labels: {team: [a]}}", "metadata.labels.team"),
    "metadata null": ("null", "metadata"),
}


@pytest.mark.parametrize("output", ["text", "json", "yaml", "clusterextensions"])
@pytest.mark.parametrize("metadata", BAD_METADATA, ids=list(BAD_METADATA))
def test_bad_metadata_is_one_line_on_every_output_format(
    tmp_path: Path, metadata: str, output: str
) -> None:
    """Issue 39: -o json answered, -o clusterextensions (which copies the annotations) was a
    traceback; the document is refused where it is read, whatever the output."""
    text, field = BAD_METADATA[metadata]
    file = tmp_path / "ce.yaml"
    file.write_text(
        "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\n"
        f"metadata: {text}\nspec:\n  namespace: ns\n  serviceAccount: {{name: sa}}\n"
        "  source: {sourceType: Catalog, catalog: {packageName: pkg}}\n"
    )
    code, out, err = run(
        "-f", str(file), "--catalog", catalog_dir(tmp_path, "c", "1.0.0"), "-o", output
    )
    assert code == 2, (out, err)
    assert f": {field}: " in err and err.startswith("deppy: error: ")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
