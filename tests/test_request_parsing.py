"""Requests as users write them: SPEC strings of the CLI and ActiveResolution files."""

from __future__ import annotations

from pathlib import Path

import pytest

from deppy.catalog.semver import Version
from deppy.errors import InputError
from deppy.resolution.request import InstalledBundle, PropertyRestriction, RequiredPackage
from deppy.resolution.request_parsing import (
    CatalogSpec,
    load_request_file,
    parse_catalog,
    parse_exclude,
    parse_installed,
    parse_require,
    request_from_document,
)

V = Version.parse


def contains(requirement: RequiredPackage, *versions: str) -> list[bool]:
    return [requirement.versions.contains(V(v)) for v in versions]


# --- --require ---------------------------------------------------------------------------------


def test_require_with_every_option() -> None:
    r = parse_require("etcd@>=0.9.0 <1.0.0,channel=alpha,catalog=community,ignore=0.9.2|v0.9.3")
    assert (r.package, r.versions_text, r.channel, r.catalog) == (
        "etcd",
        ">=0.9.0 <1.0.0",
        "alpha",
        "community",
    )
    assert r.ignore_versions == (V("0.9.2"), V("0.9.3"))
    assert r.describe() == (
        "etcd >=0.9.0 <1.0.0 in channel alpha from catalog community ignoring 0.9.2, v0.9.3"
    )
    assert contains(r, "0.9.0", "0.9.9", "1.0.0") == [True, True, False]


@pytest.mark.parametrize("spec", ["etcd", "etcd@", "etcd@latest", "etcd@*"])
def test_no_range_means_any_version(spec: str) -> None:
    r = parse_require(spec)
    assert r.versions.is_any() and r.versions_text == "" and r.describe() == "etcd"


@pytest.mark.parametrize(
    ("text", "inside", "outside"),
    [
        ("< 1.23.0", ["1.22.9"], ["1.23.0"]),
        (">= 1.22.0 < 1.23.0", ["1.22.0", "1.22.7"], ["1.21.9", "1.23.0"]),
        ("1.x", ["1.0.0", "1.99.0"], ["2.0.0", "0.9.0"]),
        ("<1.0.0 || >=2.0.0", ["0.5.0", "2.1.0"], ["1.5.0"]),
        ("!=1.2.3", ["1.2.2", "1.2.4"], ["1.2.3"]),
        ("1.2.3", ["1.2.3"], ["1.2.4"]),
    ],
)
def test_blang_ranges(text: str, inside: list[str], outside: list[str]) -> None:
    r = parse_require(f"p@{text}")
    assert r.versions_text == text
    assert contains(r, *inside) == [True] * len(inside)
    assert contains(r, *outside) == [False] * len(outside)


@pytest.mark.parametrize(
    ("within", "text", "inside", "outside"),
    [
        ("major:1.4.2", ">=1.0.0 <2.0.0-0", ["1.0.0", "1.99.1"], ["2.0.0-rc.1", "2.0.0"]),
        ("minor:1.4.2", ">=1.4.0 <1.5.0-0", ["1.4.0", "1.4.9"], ["1.5.0-rc.1", "1.3.9"]),
        ("patch:1.4.2", ">=1.4.2 <1.4.3-0", ["1.4.2", "1.4.2+build.5"], ["1.4.3-rc.1"]),
        ("minor:v1.4", ">=1.4.0 <1.5.0-0", ["1.4.0"], ["1.5.0"]),
    ],
)
def test_within_shortcut(within: str, text: str, inside: list[str], outside: list[str]) -> None:
    r = parse_require(f"p,within={within}")
    assert r.versions_text == text
    assert contains(r, *inside) == [True] * len(inside)
    assert contains(r, *outside) == [False] * len(outside)


def test_within_narrows_a_range() -> None:
    r = parse_require("p@>=1.4.5,within=minor:1.4.0")
    assert r.versions_text == ">=1.4.5 >=1.4.0 <1.5.0-0"
    assert contains(r, "1.4.4", "1.4.5", "1.5.0") == [False, True, False]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Web App", "'Web App' is not a package name"),
        ("@1.0.0", "'' is not a package name"),
        ("etcd,chanel=alpha", "unknown option 'chanel=alpha'"),
        ("etcd,alpha", "unknown option 'alpha'"),
        ("etcd,bundle=x", "unknown option 'bundle=x'"),
        ("etcd@>=1.0.0 <<2", "version range"),
        ("etcd@v1.0.0", "version range"),
        ("etcd,within=micro:1.0.0", "unknown level 'micro'"),
        ("etcd,within=minor:one", "within"),
        ("etcd,ignore=1.0.0|nope", "ignore"),
    ],
)
def test_bad_require_names_the_spec(spec: str, message: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_require(spec)
    text = str(raised.value)
    assert text.startswith(f"--require {spec!r}")
    assert message in text
    assert "\n" not in text


# --- --installed, --exclude, --catalog ---------------------------------------------------------


def test_installed() -> None:
    i = parse_installed("etcd@v0.9.2,channel=alpha,catalog=community,bundle=etcdoperator.v0.9.2")
    assert i == InstalledBundle(
        "etcd",
        V("0.9.2"),
        "alpha",
        "community",
        "etcdoperator.v0.9.2",
        "etcd@v0.9.2,channel=alpha,catalog=community,bundle=etcdoperator.v0.9.2",
    )
    assert i.describe() == "etcd v0.9.2 (channel alpha)"  # the user's own spelling
    assert parse_installed("etcd@4.8").version == V("4.8.0")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("etcd", "the installed version is missing"),
        ("etcd@", "the installed version is missing"),
        ("etcd@>=1.0.0", "--installed"),
        ("etcd@1.0.0,ignore=1.0.1", "unknown option 'ignore=1.0.1'"),
    ],
)
def test_bad_installed(spec: str, message: str) -> None:
    with pytest.raises(InputError, match="--installed") as raised:
        parse_installed(spec)
    assert message in str(raised.value)


def test_exclude() -> None:
    assert parse_exclude("olm.label=beta") == PropertyRestriction("olm.label", "beta")
    assert parse_exclude(" olm.package = etcd ").describe() == "olm.package=etcd"
    for bad in ("olm.label", "=beta", "olm.label="):
        with pytest.raises(InputError, match="expected TYPE=VALUE"):
            parse_exclude(bad)


def test_catalog_spec() -> None:
    assert parse_catalog("./cat") == CatalogSpec("./cat", None, 0)
    assert parse_catalog("./cat=community") == CatalogSpec("./cat", "community", 0)
    assert parse_catalog("./cat=community:10") == CatalogSpec("./cat", "community", 10)
    assert parse_catalog("./cat=low:-5") == CatalogSpec("./cat", "low", -5)
    with pytest.raises(InputError, match="priority: 'high' is not an integer"):
        parse_catalog("./cat=community:high")


# --- ActiveResolution files --------------------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "request.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_active_resolution_in_every_form(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
apiVersion: deppy.io/v1alpha1
kind: ActiveResolution
metadata: {name: po-resolution}
spec:
  sources: [redhat-operators, certified-operators]
  catalogs:
    - {path: catalogs/redhat, name: redhat-operators, priority: 10}
    - {path: /abs/certified}
  cluster: {openshiftVersion: 4.18, kubernetesVersion: v1.31.2}
  exclude:
    - {type: olm.label, value: tech-preview}
  constraints:
    - required("odf-operator", ">= 3.1.0", "stable")
    - installed("devspaces", "1.0.2", "alpha")
    - required('mcg', '>=1.0.0 <2.0.0')
    - required(bare-name)
    - required:
        name: cluster-logging
        versionRange: ">= 2.0.0 < 3.0.0"
        catalog: redhat-operators
        ignoreVersions: [2.1.0]
        within: major:2.4.0
    - installed:
        name: fuse-online
        version: 5.26.7
        channel: fast
        catalog: redhat-operators
        bundle: fuse-online.v5.26.7
""",
    )
    request, catalogs = load_request_file(path)
    assert request.sources == ("redhat-operators", "certified-operators")
    assert catalogs == [
        CatalogSpec(str(tmp_path / "catalogs" / "redhat"), "redhat-operators", 10),
        CatalogSpec("/abs/certified", None, 0),
    ]
    assert request.cluster.openshift_version == V("4.18.0")
    assert request.cluster.kube_version == V("1.31.2")
    assert request.exclude == (PropertyRestriction("olm.label", "tech-preview"),)
    odf, mcg, bare, logging = request.required
    assert (odf.package, odf.versions_text, odf.channel) == ("odf-operator", ">= 3.1.0", "stable")
    assert (mcg.package, mcg.versions_text, mcg.channel) == ("mcg", ">=1.0.0 <2.0.0", None)
    assert bare.package == "bare-name" and bare.versions.is_any()
    assert logging.catalog == "redhat-operators"
    assert logging.ignore_versions == (V("2.1.0"),)
    assert logging.versions_text == ">= 2.0.0 < 3.0.0 >=2.0.0 <3.0.0-0"
    assert contains(logging, "2.0.0", "2.9.9", "3.0.0") == [True, True, False]
    devspaces, fuse = request.installed
    assert devspaces == InstalledBundle("devspaces", V("1.0.2"), "alpha")
    assert fuse == InstalledBundle(
        "fuse-online", V("5.26.7"), "fast", "redhat-operators", "fuse-online.v5.26.7"
    )


def test_the_make_run_request_parses() -> None:
    from deppy.workflows.catalog_loading import embedded_catalog_path, embedded_request_path

    request, catalogs = load_request_file(embedded_request_path())
    # the sample names the embedded catalog beside it, so `make run` ignores a user's store
    assert [(c.name, Path(c.path).resolve()) for c in catalogs] == [
        ("embedded", embedded_catalog_path().resolve())
    ]
    [required] = request.required
    assert required.describe() == "observability-stack >=1.0.0 in channel stable"
    [installed] = request.installed
    assert installed.describe() == "prometheus-operator 0.56.3 (channel stable)"
    assert request.cluster.openshift_version == V("4.18.0")


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("spec: [", "", "invalid YAML"),
        ("kind: ActiveResolution\n", "", "'spec' mapping"),
        ("spec: {sources: redhat}\n", "spec.sources", "expected a list"),
        ("spec:\n  constraints: [42]\n", "spec.constraints[0]", "required: {...}"),
        ("spec:\n  constraints: ['require(\"a\")']\n", "spec.constraints[0]", "cannot read"),
        (
            'spec:\n  constraints: [\'required("a", ">=1.0.0, <2.0.0")\']\n',
            "spec.constraints[0].required.versionRange",
            "invalid version range",
        ),
        (
            'spec:\n  constraints: [\'required("a", ">=1.0.0", "s", "x")\']\n',
            "spec.constraints[0]",
            "at most 3 arguments",
        ),
        (
            "spec:\n  constraints: ['installed(\"a\")']\n",
            "spec.constraints[0].installed.version",
            "the installed version is required",
        ),
        (
            "spec:\n  constraints: [{required: {name: a, versionRange: '>= 1.0.0 <'}}]\n",
            "spec.constraints[0].required.versionRange",
            "",
        ),
        (
            "spec:\n  constraints: [{required: {name: a, ignoreVersions: 1.0.0}}]\n",
            "spec.constraints[0].required.ignoreVersions",
            "expected a list",
        ),
        (
            "spec:\n  constraints: [{installed: {name: a, version: 1.0.0, channnel: x}}]\n",
            "spec.constraints[0].installed.channnel",
            "unknown field",
        ),
        ("spec:\n  cluster: 4.18\n", "spec.cluster", "expected a mapping"),
        (
            "spec:\n  cluster: {kubernetesVersion: latest}\n",
            "spec.cluster.kubernetesVersion",
            "",
        ),
        ("spec:\n  exclude: [olm.label=beta]\n", "spec.exclude[0]", "{type: ..., value: ...}"),
        ("spec:\n  exclude: [{value: beta}]\n", "spec.exclude[0]", "{type: ..., value: ...}"),
        ("spec:\n  catalogs: [./cat]\n", "spec.catalogs[0]", "expected {path"),
        (
            "spec:\n  catalogs: [{path: ., priority: true}]\n",
            "spec.catalogs[0].priority",
            "expected an integer",
        ),
    ],
)
def test_bad_request_file_names_the_place(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as raised:
        load_request_file(path)
    error = raised.value
    assert error.where.startswith(str(path))
    assert where in error.where
    assert message in str(error)
    assert "\n" not in str(error)


def test_request_file_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_request_file(tmp_path / "absent.yaml")
    with pytest.raises(InputError, match="is a directory, not a regular file"):
        load_request_file(tmp_path)


@pytest.mark.parametrize(
    ("document", "field"),
    [
        (
            {
                "spec": {
                    "constraints": [
                        "required(a)",
                        "required(b)",
                        {"required": {"name": "c", "versionRange": ">=1 <"}},
                    ]
                }
            },
            "spec.constraints[2].required.versionRange",
        ),
        (
            {
                "spec": {
                    "constraints": [{"required": {"name": "c", "ignoreVersions": ["1.0.0", "x"]}}]
                }
            },
            "spec.constraints[0].required.ignoreVersions[1]",
        ),
        (
            {"spec": {"constraints": [{"required": {"name": "c", "within": "minor:one"}}]}},
            "spec.constraints[0].required.within",
        ),
        ({"spec": {"cluster": {"openshiftVersion": "four"}}}, "spec.cluster.openshiftVersion"),
        ({"spec": {"exclude": [{"type": "olm.label"}]}}, "spec.exclude[0]"),
        ({"kind": "ActiveResolution"}, "spec"),
        (["spec"], "spec"),
    ],
)
def test_a_parsed_document_names_the_field_alone(document: object, field: str) -> None:
    """An HTTP body has no file name: the error's place is the field path itself."""
    with pytest.raises(InputError) as raised:
        request_from_document(document)
    assert raised.value.where == field


def test_a_parsed_document_gives_the_same_request_as_its_file(tmp_path: Path) -> None:
    text = 'spec:\n  constraints: [\'required("etcd", ">=0.9.0", "alpha")\']\n'
    from_file, _ = load_request_file(write(tmp_path, text))
    import yaml

    from_document, catalogs = request_from_document(yaml.safe_load(text))
    assert from_document == from_file and catalogs == []


@pytest.mark.parametrize("kind", ["required", "installed"])
def test_a_list_where_one_channel_belongs_is_bad_input(kind: str) -> None:
    """A list of channels (OLM v1's ClusterExtension takes one) used to become the channel
    "['beta', 'alpha']"; it is now an error naming the field."""
    body = {"name": "etcd", "channel": ["beta", "alpha"]}
    if kind == "installed":
        body["version"] = "1.0.0"
    data = {"spec": {"constraints": [{kind: body}]}}
    with pytest.raises(InputError) as caught:
        request_from_document(data, "req.yaml")
    assert str(caught.value).startswith(
        f"req.yaml: spec.constraints[0].{kind}.channel: expected one value, not a list"
    )
