"""olm.constraint values: parsing as operator-framework/api does, matching as OLM does, and CEL."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from deppy.catalog import cel
from deppy.catalog.cel import (
    CelCompileError,
    CelEvaluationError,
    CelProperties,
    compile_rule,
    go_float,
    interpreter,
    semver_compare,
)
from deppy.catalog.constraint_spec import (
    MAX_CONSTRAINT_SIZE,
    AllConstraint,
    AnyConstraint,
    CelConstraint,
    CelFailure,
    GVKConstraint,
    NotConstraint,
    PackageConstraint,
    parse_constraint,
)
from deppy.catalog.semver import Version, VersionRange
from deppy.errors import InputError
from tests.conftest import shared_path

WHERE = "catalog.json: bundle test.v1.0.0, property 0"


@dataclass(frozen=True)
class FakeGVK:
    group: str
    version: str
    kind: str


@dataclass(frozen=True)
class FakeProperty:
    type: str
    value: Any = field(hash=False)


@dataclass(frozen=True, eq=False)
class FakeBundle:
    package: str
    version: Version
    provided_gvks: tuple[FakeGVK, ...] = ()
    properties: tuple[FakeProperty, ...] = ()


def bundle(
    package: str,
    version: str,
    gvks: tuple[tuple[str, str, str], ...] = (),
    extra: tuple[tuple[str, Any], ...] = (),
) -> FakeBundle:
    """A bundle with the olm.package/olm.gvk properties a catalog would give it."""
    provided = tuple(FakeGVK(*g) for g in gvks)
    props = (
        FakeProperty("olm.package", {"packageName": package, "version": version}),
        *(FakeProperty("olm.gvk", {"group": g, "version": v, "kind": k}) for g, v, k in gvks),
        *(FakeProperty(t, v) for t, v in extra),
    )
    return FakeBundle(package, Version.parse(version), provided, props)


def parse(value: object) -> Any:
    return parse_constraint(value, where=WHERE)


# --------------------------------------------------------------------------------------------------
# Each kind


def test_gvk_constraint() -> None:
    c = parse({"failureMessage": "needs etcd", "gvk": {"group": "etcd.io", "version": "v1",
                                                       "kind": "Cluster"}})  # fmt: skip
    assert c == GVKConstraint("etcd.io", "v1", "Cluster", "needs etcd")
    assert c.matches(bundle("etcd", "1.0.0", (("etcd.io", "v1", "Cluster"),)))
    assert not c.matches(bundle("etcd", "1.0.0", (("etcd.io", "v1beta1", "Cluster"),)))
    assert not c.matches(bundle("etcd", "1.0.0", (("other.io", "v1", "Cluster"),)))
    assert not c.matches(bundle("etcd", "1.0.0"))
    assert c.describe() == "a bundle providing Cluster (etcd.io/v1)"
    assert c.candidate_packages() is None


def test_gvk_constraint_core_group() -> None:
    c = parse({"gvk": {"version": "v1", "kind": "ConfigMap"}})
    assert c == GVKConstraint("", "v1", "ConfigMap")
    assert c.matches(bundle("x", "1.0.0", (("", "v1", "ConfigMap"),)))
    assert c.describe() == "a bundle providing ConfigMap (core v1)"


def test_package_constraint() -> None:
    c = parse({"package": {"packageName": "foo", "versionRange": ">=1.0.0 <2.0.0"}})
    assert isinstance(c, PackageConstraint)
    assert c.version_range == VersionRange.parse(">=1.0.0 <2.0.0")
    assert c.failure_message is None
    assert c.matches(bundle("foo", "1.5.0"))
    assert not c.matches(bundle("foo", "2.0.0"))
    assert not c.matches(bundle("bar", "1.5.0"))
    assert c.describe() == "a bundle of package foo in range >=1.0.0 <2.0.0"
    assert c.candidate_packages() == frozenset({"foo"})


def test_cel_constraint() -> None:
    rule = 'properties.exists(p, p.type == "certified" && p.value == "false")'
    c = parse({"failureMessage": "require a certified operator", "cel": {"rule": rule}})
    assert isinstance(c, CelConstraint)
    assert c.rule == rule and c.failure_message == "require a certified operator"
    assert c.matches(bundle("a", "1.0.0", extra=(("certified", "false"),)))
    assert not c.matches(bundle("a", "1.0.0", extra=(("certified", "true"),)))
    assert not c.matches(bundle("a", "1.0.0"))
    assert c.describe() == f"a bundle for which CEL rule `{rule}` holds"


def test_compounds_and_nesting() -> None:
    value = {
        "all": {
            "constraints": [
                {"package": {"packageName": "foo", "versionRange": ">=1.0.0"}},
                {
                    "any": {
                        "constraints": [
                            {"gvk": {"group": "a.io", "version": "v1", "kind": "A"}},
                            {"gvk": {"group": "b.io", "version": "v1", "kind": "B"}},
                        ]
                    }
                },
                {"not": {"constraints": [{"package": {"packageName": "foo",
                                                      "versionRange": "1.3.0"}}]}},
            ]
        }
    }  # fmt: skip
    c = parse(value)
    assert isinstance(c, AllConstraint)
    assert isinstance(c.constraints[1], AnyConstraint)
    assert isinstance(c.constraints[2], NotConstraint)
    assert c.matches(bundle("foo", "1.2.0", (("a.io", "v1", "A"),)))
    assert c.matches(bundle("foo", "1.4.0", (("b.io", "v1", "B"),)))
    assert not c.matches(bundle("foo", "1.3.0", (("a.io", "v1", "A"),)))  # the not
    assert not c.matches(bundle("foo", "1.2.0", (("c.io", "v1", "C"),)))  # the any
    assert not c.matches(bundle("foo", "0.9.0", (("a.io", "v1", "A"),)))  # the package
    assert c.describe() == (
        "all of: a bundle of package foo in range >=1.0.0; "
        "(any of: a bundle providing A (a.io/v1); a bundle providing B (b.io/v1)); "
        "(none of: a bundle of package foo in range 1.3.0)"
    )
    assert c.candidate_packages() == frozenset({"foo"})


def test_empty_compounds_behave_as_in_olm() -> None:
    b = bundle("foo", "1.0.0")
    assert parse({"all": {"constraints": []}}).matches(b)  # And() of nothing is true
    assert not parse({"any": {"constraints": []}}).matches(b)  # Or() of nothing is false
    assert parse({"not": {"constraints": None}}).matches(b)  # !Or() is true
    assert parse({"any": {}}).describe() == "any of: nothing (no bundle)"


def test_candidate_packages_of_compounds() -> None:
    def pkg(name: str) -> dict[str, Any]:
        return {"package": {"packageName": name, "versionRange": ">=0.0.0-0"}}

    gvk = {"gvk": {"group": "a", "version": "v1", "kind": "K"}}
    assert parse({"any": {"constraints": [pkg("a"), pkg("b")]}}).candidate_packages() == {"a", "b"}
    assert parse({"any": {"constraints": [pkg("a"), gvk]}}).candidate_packages() is None
    assert parse({"all": {"constraints": [pkg("a"), gvk]}}).candidate_packages() == {"a"}
    assert parse({"all": {"constraints": [pkg("a"), pkg("b")]}}).candidate_packages() == set()
    assert parse({"not": {"constraints": [pkg("a")]}}).candidate_packages() is None


def test_go_decoding_matches_field_names_case_insensitively() -> None:
    c = parse({"FailureMessage": "m", "Package": {"PackageName": "foo", "versionrange": "1.0.0"}})
    assert c == PackageConstraint("foo", VersionRange.parse("1.0.0"), "m")


def test_null_kinds_count_as_absent() -> None:
    c = parse({"gvk": None, "package": {"packageName": "foo", "versionRange": "1.0.0"}})
    assert isinstance(c, PackageConstraint)


# --------------------------------------------------------------------------------------------------
# Rejections: each names the place and what to do


@pytest.mark.parametrize(
    ("value", "where", "what"),
    [
        ("gvk", "", "a constraint must be an object, not a string"),
        ([], "", "a constraint must be an object, not a list"),
        ({}, "", "the constraint is empty"),
        (None, "", "the constraint is empty"),
        ({"failureMessage": "x"}, "", "the constraint is empty"),
        (
            {"gvk": {"group": "g", "version": "v", "kind": "k"},
             "package": {"packageName": "p", "versionRange": "1.0.0"}},
            "", "the constraint sets gvk and package; OLM would use only gvk",
        ),
        ({"foo": 1, "gvk": {}}, "", 'unknown field "foo" in a constraint'),
        ({"failureMessage": 3, "gvk": {"version": "v1", "kind": "K"}}, "/failureMessage",
         "must be a string, not a number"),
        ({"gvk": "v1/K"}, "/gvk", "a gvk constraint must be an object, not a string"),
        ({"gvk": {"version": "v1"}}, "/gvk/kind", "is missing or empty"),
        ({"gvk": {"kind": "K", "version": ""}}, "/gvk/version", "is missing or empty"),
        ({"gvk": {"kind": "K", "version": "v1", "plural": "ks"}}, "/gvk",
         'unknown field "plural" in a gvk constraint'),
        ({"gvk": {"kind": 1, "version": "v1"}}, "/gvk/kind", "must be a string, not a number"),
        ({"package": {"versionRange": "1.0.0"}}, "/package/packageName", "is missing or empty"),
        ({"package": {"packageName": "p"}}, "/package/versionRange", "is missing or empty"),
        ({"package": {"packageName": "p", "versionRange": ">=1.0.0 <<2"}},
         "/package/versionRange",
         'invalid version range ">=1.0.0 <<2": "<<2" is not a comparison; '
         'write e.g. ">=1.0.0 <2.0.0"'),
        ({"package": {"packageName": "p", "versionRange": "^1.2"}}, "/package/versionRange",
         "is not an operator OLM knows"),
        ({"package": {"packageName": "p", "version": "1.0.0"}}, "/package",
         'unknown field "version" in a package constraint'),
        ({"cel": {}}, "/cel/rule", "is missing or empty"),
        ({"cel": {"rule": "properties.exists(p,"}}, "/cel/rule",
         "the CEL rule does not compile: syntax error"),
        ({"cel": {"rule": "foo(properties)"}}, "/cel/rule",
         "the CEL rule does not compile: undeclared reference to 'foo'"),
        ({"cel": {"rule": "properties.size()"}}, "/cel/rule",
         "cel expressions must have type Bool; this rule gives int"),
        ({"cel": {"rule": "properties[0].value"}}, "/cel/rule", "this rule gives dyn"),
        ({"cel": {"rule": "true", "lang": "cel"}}, "/cel", 'unknown field "lang"'),
        ({"all": []}, "/all", "the 'all' constraint must be an object, not a list"),
        ({"all": {"constraints": {}}}, "/all/constraints", "must be a list"),
        ({"any": {"constraints": [{"gvk": {"kind": "K", "version": "v1"}}, {}]}},
         "/any/constraints[1]", "the constraint is empty"),
        ({"not": {"items": []}}, "/not", 'unknown field "items" in the \'not\' constraint'),
        ({"all": {"constraints": [{"any": {"constraints": [
            {"package": {"packageName": "p", "versionRange": "1.0"}}]}}]}},
         "/all/constraints[0]/any/constraints[0]/package/versionRange",
         'ranges need all three numbers: write "1.0.0"'),
    ],
)  # fmt: skip
def test_rejections(value: object, where: str, what: str) -> None:
    with pytest.raises(InputError) as info:
        parse(value)
    err = info.value
    assert err.where == WHERE + where
    assert what in str(err)
    assert str(err).startswith(WHERE + where + ": ")


def test_every_rejection_says_how_to_fix() -> None:
    for value in ({}, {"gvk": {"version": "v1"}}, {"foo": 1}, {"cel": {"rule": "1"}}):
        with pytest.raises(InputError) as info:
            parse(value)
        assert info.value.fix


def test_size_cap_is_operator_frameworks() -> None:
    assert MAX_CONSTRAINT_SIZE == 131072  # 2 << 16 in pkg/constraints
    base = {"failureMessage": "", "gvk": {"group": "g", "version": "v1", "kind": "K"}}
    overhead = len(json.dumps(base, separators=(",", ":")))
    at_limit = dict(base, failureMessage="x" * (MAX_CONSTRAINT_SIZE - overhead))
    assert parse(at_limit).kind == "K"
    over = dict(base, failureMessage="x" * (MAX_CONSTRAINT_SIZE - overhead + 1))
    with pytest.raises(InputError) as info:
        parse(over)
    assert info.value.where == WHERE
    assert "131073 bytes, over OLM's limit of 131072 bytes (128 KiB)" in str(info.value)


def test_nesting_is_bounded() -> None:
    value: dict[str, Any] = {"gvk": {"version": "v1", "kind": "K"}}
    for _ in range(150):
        value = {"not": {"constraints": [value]}}
    with pytest.raises(InputError, match="nest more than 100 levels"):
        parse(value)


# --------------------------------------------------------------------------------------------------
# Real constraints


def _dbaas_expectations(c: Any) -> None:
    assert isinstance(c, AnyConstraint)
    assert c.failure_message == "Service Binding Operator is required"
    packages = [x for x in c.constraints if isinstance(x, PackageConstraint)]
    assert [x.package_name for x in packages] == [
        "rh-service-binding-operator",
        "service-binding-operator",
    ]
    assert c.constraints[0].failure_message == "Package rh-service-binding-operator is needed"
    assert c.matches(bundle("service-binding-operator", "1.3.0"))
    assert c.matches(bundle("rh-service-binding-operator", "1.0.0"))
    assert not c.matches(bundle("service-binding-operator", "0.9.0"))
    assert not c.matches(bundle("dbaas-operator", "0.5.0"))
    assert c.candidate_packages() == frozenset(
        {"rh-service-binding-operator", "service-binding-operator"}
    )
    assert c.describe() == (
        "any of: a bundle of package rh-service-binding-operator in range >=1.0.0; "
        "a bundle of package service-binding-operator in range >=1.0.0"
    )


def test_the_olm_constraint_in_community_operators() -> None:
    found = []
    root = shared_path("catalogs", "community-operators-prod-v4.18")
    for path in sorted(root.glob("*/catalog.json")):
        text = path.read_text(encoding="utf-8")
        if "olm.constraint" not in text:
            continue
        for line in text.splitlines():
            obj = json.loads(line)
            for i, prop in enumerate(obj.get("properties") or []):
                if prop.get("type") == "olm.constraint":
                    where = f"{path.parent.name}/catalog.json: {obj['name']} properties[{i}]"
                    found.append(parse_constraint(prop["value"], where=where))
    assert len(found) == 1  # the catalog README's count
    _dbaas_expectations(found[0])


def test_the_any_constraint_of_dbaas_operator_bundle() -> None:
    path = shared_path(
        "bundles", "metadata-only", "community-operators-prod", "operators", "dbaas-operator",
        "0.5.0", "metadata", "properties.yaml",
    )  # fmt: skip
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    (prop,) = [p for p in doc["properties"] if p["type"] == "olm.constraint"]
    _dbaas_expectations(parse_constraint(prop["value"], where=str(path)))


# --------------------------------------------------------------------------------------------------
# CEL: the environment OLM gives a rule


def props(*pairs: tuple[str, Any]) -> CelProperties:
    return CelProperties([FakeProperty(t, v) for t, v in pairs])


def run(rule: str, properties: CelProperties | None = None) -> bool | str:
    """The verdict, or "error" when the rule fails on these properties."""
    try:
        return compile_rule(rule).evaluate(properties or props())
    except CelEvaluationError:
        return "error"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("1.0.0", "1.0.0", 0),
        ("1.0.0", "2.0.0", -1),
        ("2.0.0", "1.0.0", 1),
        ("v1.2", "1.2.0", 0),  # ParseTolerant: "v" and short versions
        (" 1.2.3 ", "1.2.3", 0),
        ("1.0.0-rc.1", "1.0.0", -1),
        ("1.0.0+a", "1.0.0+b", 0),
        (4.12, "4.12.0", 0),  # JSON numbers are doubles, printed as Go prints them
        (4.0, "4.0.0", 0),
        (4, "4.0.0", 0),
    ],
)
def test_semver_compare(a: Any, b: Any, expected: int) -> None:
    assert semver_compare(a, b) == expected
    assert semver_compare(b, a) == -expected


@pytest.mark.parametrize("bad", ["not-a-version", "", "1.2.3.4", True, None, [1], {"a": 1}, 1e6])
def test_semver_compare_rejects_what_parse_tolerant_rejects(bad: Any) -> None:
    with pytest.raises(CelEvaluationError, match=r"unable to parse '.*' to semver format"):
        semver_compare(bad, "1.0.0")


@pytest.mark.parametrize(
    ("value", "text"),
    [(4.12, "4.12"), (4.0, "4"), (1e6, "1e+06"), (123456.0, "123456"), (1234567.0, "1.234567e+06"),
     (0.0001, "0.0001"), (0.00001, "1e-05"), (-2.5, "-2.5"), (1e21, "1e+21"), (0.1, "0.1")],
)  # fmt: skip
def test_go_float_formatting(value: float, text: str) -> None:
    assert go_float(value) == text


def test_semver_compare_in_rules() -> None:
    p = props(("olm.package", {"packageName": "foo", "version": "1.2.3"}),
              ("olm.maxOpenShiftVersion", 4.12))  # fmt: skip
    rule = (
        'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "%s") %s)'
    )
    assert run(rule % ("1.0.0", ">= 0"), p) is True
    assert run(rule % ("v1.2", "> 0"), p) is True
    assert run(rule % ("2.0.0", ">= 0"), p) is False
    assert run('properties.exists(p, p.type == "olm.maxOpenShiftVersion" && '
               'semver_compare(p.value, "4.12") == 0)', p) is True  # fmt: skip
    assert run('semver_compare("bad", "1.0.0") == 0', p) == "error"


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # cel-go's heterogeneous equality: mixed numbers compare by value, other types unequal.
        ("1 == 1.0", True),
        ('"1" == 1', False),
        ("[1, 2] == [1.0, 2.0]", True),
        ("null == false", False),
        # && and || are commutative over errors; a decisive side wins.
        ("1 / 0 == 1 || true", True),
        ("true || 1 / 0 == 1", True),
        ("1 / 0 == 1 && false", False),
        ("1 / 0 == 1 && true", "error"),
        ("[0, 1].exists(x, 1 / x == 1)", True),
        ("[0, 1].all(x, 1 / x == 1)", "error"),
        ("[0, 2].all(x, x > 0 && 1 / x == 1)", False),
        # int64 arithmetic with Go's truncation, overflow is an error.
        ("-7 / 2 == -3 && -7 % 2 == -1", True),
        ("9223372036854775807 + 1 > 0", "error"),
        ("-9223372036854775807 - 1 < 0", True),
        ("1 + 1.0 == 2.0", "error"),
        ("1.0 / 0.0 > 1e308", True),
        # strings, lists, maps, conversions
        ('size("héllo") == 5 && "abc".contains("b") && "abc".startsWith("ab")', True),
        ('"abc".endsWith("bc") && "abc".matches("^a.c$") && matches("abc", "b")', True),
        ("[1, 2, 3].filter(x, x > 1).map(x, x * 10) == [20, 30]", True),
        ("[1, 2, 3].map(x, x > 1, x) == [2, 3] && [1, 2].exists_one(x, x == 2)", True),
        ('{"a": 1}["a"] == 1 && "a" in {"a": 1} && has({"a": 1}.a) && !has({"a": 1}.b)', True),
        ('{"a": 1}["b"] == 1', "error"),
        ("[1][1] == 1", "error"),
        ('int("42") == 42 && double("2.5") == 2.5 && string(2.5) == "2.5" && bool("true")', True),
        ('string(1000000.0) == "1e+06" && int(-1.9) == -1', True),
        ('int("4x") == 4', "error"),
        ("true ? 1 == 1 : 1 / 0 == 1", True),
        ("1 > 0 ? false : true", False),
        ('dyn("a") == "a"', True),
        ('"a" < 1', "error"),
    ],
)
def test_cel_go_semantics(rule: str, expected: bool | str) -> None:
    assert compile_rule(rule).slow_reason is None
    assert run(rule) == expected


def test_json_numbers_are_doubles_as_in_go() -> None:
    p = props(("count", 3), ("ratio", 0.5))
    assert run('properties.exists(p, p.type == "count" && p.value == 3)', p) is True
    assert run('properties.exists(p, p.type == "count" && p.value == 3.0)', p) is True
    assert run('properties.exists(p, p.type == "count" && p.value > 2)', p) is True
    assert run('properties.exists(p, p.type == "count" && p.value + 1.0 == 4.0)', p) is True
    assert run('properties.exists(p, p.type == "count" && p.value + 1 == 4)', p) == "error"
    assert run('properties.exists(p, p.type == "count" && string(p.value) == "3")', p) is True
    # ... also deep inside values, in lists, and through concatenation
    nested = props(("nums", {"list": [1, 2], "map": {"n": 7}}))
    base = 'properties.exists(p, p.type == "nums" && %s)'
    assert run(base % "p.value.list.all(x, x + 1.0 > 1.5)", nested) is True
    assert run(base % "p.value.list.all(x, x + 1 > 1)", nested) == "error"
    assert run(base % "p.value.list[1] / 4.0 == 0.5", nested) is True
    assert run(base % 'p.value["map"].n * 2.0 == 14.0', nested) is True
    assert run(base % "(p.value.list + [3])[0] + 1.0 == 2.0", nested) is True
    assert run(base % "(p.value.list + [3])[2] + 1 == 4", nested) is True  # a CEL int stays int
    assert run(base % "p.value.list.map(x, x * 2.0) == [2, 4]", nested) is True
    assert run(base % "p.value.list == [1, 2] && 2 in p.value.list", nested) is True
    assert run("[1, 2].all(x, x + 1 > 1)", nested) is True  # literals are ints


def test_properties_variable_shape() -> None:
    p = props(("olm.package", {"packageName": "foo", "version": "1.0.0"}), ("flag", True))
    assert run("properties.size() == 2", p) is True
    assert run('properties[0].type == "olm.package"', p) is True
    assert run('properties[0].value.packageName == "foo"', p) is True
    assert run("properties[1].value == true", p) is True
    assert run("properties.all(p, has(p.value.packageName))", p) == "error"  # "flag" is no map
    assert run('properties.exists(p, p.value.packageName == "foo")', p) is True


def test_runtime_errors_do_not_match_but_are_recorded() -> None:
    c = parse({"cel": {"rule": 'properties.exists(p, p.value.version == "1.0.0")'}})
    b = bundle("foo", "2.0.0", extra=(("flag", "x"),))
    errors: list[CelFailure] = []
    assert not c.matches(b)
    assert not c.matches(b, errors)
    assert len(errors) == 1
    assert errors[0].rule == c.rule
    assert "does not support field selection" in errors[0].message
    assert c.matches(bundle("foo", "1.0.0", extra=(("flag", "x"),)))  # a true element wins


def test_errors_are_collected_through_compounds() -> None:
    value = {"any": {"constraints": [
        {"cel": {"rule": "properties[9].type == \"x\""}},
        {"cel": {"rule": "properties[0].value.nope == 1"}},
    ]}}  # fmt: skip
    errors: list[CelFailure] = []
    assert not parse(value).matches(bundle("foo", "1.0.0"), errors)
    assert [e.message for e in errors] == ["index out of range: 9", "no such key: nope"]


def test_rules_are_compiled_once() -> None:
    rule = 'properties.exists(p, p.type == "once")'
    a = parse({"cel": {"rule": rule}})
    b = parse({"cel": {"rule": rule}})
    assert a.program is b.program
    assert a == b  # equality is by rule text


def test_bundle_properties_are_converted_once() -> None:
    b = bundle("foo", "1.0.0")
    assert cel.properties_of(b) is cel.properties_of(b)
    assert cel.properties_of(b) is not cel.properties_of(bundle("foo", "1.0.0"))


@pytest.mark.parametrize(
    "rule",
    [
        'timestamp("2020-01-01T00:00:00Z") < timestamp("2021-01-01T00:00:00Z")',
        "1u + 2u == 3u",
        'b"ab" == b"ab"',
        "type(1) == int",
        'duration("1h") > duration("1m")',
    ],
)
def test_rare_features_fall_back_to_cel_python(rule: str) -> None:
    program = compile_rule(rule)
    assert program.slow_reason is not None
    assert program.evaluate(props()) is True


def test_fallback_sees_the_same_properties_and_semver_compare() -> None:
    rule = ('properties.exists(p, p.type == "olm.package" && '
            'semver_compare(p.value.version, "1.0.0") > 0) && 1u == 1u')  # fmt: skip
    program = compile_rule(rule)
    assert program.slow_reason == "UINT_LIT literals"
    p = props(("olm.package", {"packageName": "foo", "version": "1.2.0"}))
    assert program.evaluate(p) is True
    assert program.evaluate(props(("olm.package", {"version": "0.1.0"}))) is False
    with pytest.raises(CelEvaluationError, match="unable to parse"):
        program.evaluate(props(("olm.package", {"version": "bad"})))


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("", "the rule is empty"),
        ("properties.exists(p, ", "syntax error"),
        ("bogus", "undeclared reference to 'bogus'"),
        ("properties.exists(p, q)", "undeclared reference to 'q'"),
        ("p.type == 'x'", "undeclared reference to 'p'"),  # macro variables are scoped
        ("properties.exists(p, true) && p.type == 'x'", "undeclared reference to 'p'"),
        ("properties.frobnicate()", "undeclared reference to 'frobnicate'"),
        ("semver_compare('1.0.0') == 0", "no matching overload for 'semver_compare'"),
        ("properties.exists(p.x, true)", "the first argument must be a simple name"),
        ("properties.exists(p)", "exists() takes 2 arguments"),
        ("has(properties)", "invalid argument to has()"),
        ("1 + 1", "this rule gives int"),
        ("'x'", "this rule gives string"),
        ("properties", "this rule gives list"),
        ("Msg{a: 1} == 1", "message construction"),
        ("99999999999999999999 > 1", "does not fit in int64"),
    ],
)
def test_compile_errors(rule: str, message: str) -> None:
    with pytest.raises(CelCompileError) as info:
        compile_rule(rule)
    assert message in str(info.value)


# Differential test: the fast path against cel-python's interpreter, on well-typed rules where
# cel-python and cel-go agree (cel-python lacks heterogeneous equality, so types stay apart).


def _slow(rule: str) -> cel.CelProgram:
    return cel.CelProgram(rule, "forced", None, interpreter.program(cel._parse(rule)))


small_ints = st.integers(-3, 3).map(str)
ints = st.recursive(
    small_ints | st.just("size(properties)"),
    lambda e: st.one_of(
        st.tuples(e, st.sampled_from("+-*/%"), e).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        e.map(lambda x: f"-({x})"),
    ),
    max_leaves=4,
)
strings = st.sampled_from(['"a"', '"ab"', '""', "properties[0].type", '"olm.package"'])
bools = st.recursive(
    st.one_of(
        st.just("true"),
        st.just("false"),
        st.tuples(ints, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), ints).map(
            lambda t: f"{t[0]} {t[1]} {t[2]}"
        ),
        st.tuples(strings, st.sampled_from(["startsWith", "endsWith", "contains"]), strings).map(
            lambda t: f"{t[0]}.{t[1]}({t[2]})"
        ),
        st.tuples(strings, strings).map(lambda t: f"{t[0]} == {t[1]}"),
        ints.map(lambda x: f"[0, 1, 2].exists(v, v == {x})"),
        ints.map(lambda x: f"[1, 2].all(v, v / ({x}) > 0)"),
    ),
    lambda e: st.one_of(
        st.tuples(e, st.sampled_from(["&&", "||"]), e).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        e.map(lambda x: f"!({x})"),
        st.tuples(e, e, e).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
    ),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None)
@given(bools)
def test_fast_path_agrees_with_cel_python(rule: str) -> None:
    p = props(("olm.package", {"packageName": "foo"}), ("x", "y"))
    outcomes: list[bool | str] = []
    for program in (compile_rule(rule), _slow(rule)):
        try:
            outcomes.append(program.evaluate(p))
        except CelEvaluationError:
            outcomes.append("error")
    assert outcomes[0] == outcomes[1], rule
