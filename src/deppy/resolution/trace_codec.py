"""OLM variables, facts, bundles and catalog answers as plain JSON, and back, for traces.

Values are tagged where their type is not obvious from JSON: ``{"$b": ref}`` a bundle (written
once per trace, in the payload's ``bundles`` table, then referenced), ``{"$t": "Needs", ...}``
a fact or request dataclass, ``{"$v": "1.2.3"}`` a version, ``{"$r": canonical, "text": ...}``
a version range, ``{"$g": [group, version, kind]}`` an API, ``{"$c": text}`` an OLM v1 version
constraint; lists stand for tuples. Bundles are
recorded without their manifests (olm.bundle.object) and CSV metadata, which nothing after
variable generation reads; everything an explanation or an answer uses is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, get_args

import orjson

from deppy.catalog.model import (
    GVK,
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    Package,
    PackageRequirement,
    Property,
)
from deppy.catalog.properties import BUNDLE_OBJECT, CSV_METADATA
from deppy.catalog.semver import Version, VersionError, VersionRange
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.pipeline.constraint_codec import decode_constraint, encode_constraint
from deppy.pipeline.events import Batch
from deppy.resolution.context import CandidateOrder, ResolutionContext
from deppy.resolution.replay_source import CallKey, RecordingSource, ReplayedSource
from deppy.resolution.request import (
    CatalogChoice,
    ClusterFacts,
    ExtensionTerms,
    InstalledBundle,
    PropertyRestriction,
    RequiredPackage,
    ResolutionRequest,
)
from deppy.resolution.variables import Fact, Needs, OLMVariable, OnePerAPI, OnePerPackage, bundle_id
from deppy.solver import AppliedConstraint, Variable

_HEAVY_PROPERTIES = frozenset({BUNDLE_OBJECT, CSV_METADATA})
_SKIPPED_BUNDLE_FIELDS = frozenset({"csv_metadata", "related_images"})

_TAGGED: tuple[type[Any], ...] = (
    *get_args(Fact),
    RequiredPackage,
    InstalledBundle,
    PropertyRestriction,
    ClusterFacts,
    ResolutionRequest,
    ExtensionTerms,
    CatalogChoice,
    PackageRequirement,
    Package,
    Channel,
    ChannelEntry,
    Deprecation,
)
_CLASSES: dict[str, type[Any]] = {cls.__name__: cls for cls in _TAGGED}
# what a resolution does not read stays out of the trace (a ClusterExtension's document as
# written is only for the plan deppy prints after it)
_NOT_TRACED = frozenset({(ExtensionTerms, "document")})
_FIELDS: dict[type[Any], tuple[str, ...]] = {
    cls: tuple(
        f.name for f in dataclasses.fields(cls) if f.init and (cls, f.name) not in _NOT_TRACED
    )
    for cls in _TAGGED
}
_BUNDLE_FIELDS = tuple(
    f.name for f in dataclasses.fields(Bundle) if f.init and f.name not in _SKIPPED_BUNDLE_FIELDS
)
_SCALARS = frozenset({str, int, bool, float, type(None)})


# Records of catalog objects (bundles, channels) do not depend on the trace: each is built and
# serialised once per object and process (catalog objects are immutable and long-lived).
_RECORDS: dict[int, tuple[object, Any]] = {}
_RECORDS_LIMIT = 50_000
_CACHED = (Channel, Package)
_Fragment = getattr(orjson, "Fragment", None)  # pre-serialised JSON (orjson >= 3.9.10)


def _remember(obj: object, record: Any) -> Any:
    if _Fragment is not None:
        record = _Fragment(orjson.dumps(record))
    if len(_RECORDS) >= _RECORDS_LIMIT:
        _RECORDS.clear()
    _RECORDS[id(obj)] = (obj, record)
    return record


class OLMEncoder:
    """Encodes the batches of one trace, writing each bundle once and each variable once."""

    def __init__(self) -> None:
        self._tags: dict[int, dict[str, str]] = {}  # id(bundle) -> {"$b": ref}
        self._by_ref: dict[str, Bundle] = {}
        self._alive: list[Bundle] = []  # keeps the ids in _tags valid
        self._new: dict[str, Any] = {}  # records of bundles not yet written
        self._latest: dict[str, OLMVariable] = {}
        self._recording: RecordingSource | None = None
        self._context: ResolutionContext | None = None
        self._warnings: list[str] = []
        self._whole = False
        self._fast: dict[type[Any], Callable[[Any], dict[str, Any]]] = {}
        if _FIELDS[Needs] == ("dependent", "need", "candidates", "missing", "package"):
            self._fast[Needs] = self._needs
        for cls in (OnePerPackage, OnePerAPI):
            if _FIELDS[cls][1:] == ("bundles",):
                self._fast[cls] = self._members

    # -- batches -------------------------------------------------------------------------------
    def encode(self, batch: Batch[Any]) -> dict[str, Any]:
        latest = self._latest
        variables: list[Any] = []
        items: tuple[OLMVariable, ...] = batch.variables
        for variable in items:
            identifier = variable.id
            if latest.get(identifier) is variable:
                variables.append(identifier)
            else:
                latest[identifier] = variable
                variables.append(self._variable(variable))
        payload: dict[str, Any] = {}
        if self._new:
            payload["bundles"], self._new = self._new, {}
        payload["variables"] = variables
        if batch.core is not None:
            payload["core"] = [[a.variable.id, _position(a)] for a in batch.core]
        return payload

    def _variable(self, variable: OLMVariable) -> dict[str, Any]:
        fast = self._fast
        record: dict[str, Any] = {
            "id": variable.id,
            "kind": variable.kind,
            "constraints": [encode_constraint(c) for c in variable.variable.constraints],
            "facts": [
                fast[type(f)](f) if type(f) in fast else self._value(f) for f in variable.facts
            ],
        }
        if variable.bundle is not None:
            record["bundle"] = self._tag(variable.bundle)["$b"]
        return record

    def _needs(self, fact: Needs) -> dict[str, Any]:
        """The commonest fact, without the generic walk (same JSON as the generic form)."""
        tag, known = self._tag, self._tags
        dependent = fact.dependent
        return {
            "$t": "Needs",
            "dependent": tag(dependent) if type(dependent) is Bundle else self._value(dependent),
            "need": fact.need,
            "candidates": [known.get(id(b)) or tag(b) for b in fact.candidates],
            "missing": fact.missing,
            "package": fact.package,
        }

    def _members(self, fact: OnePerPackage | OnePerAPI) -> dict[str, Any]:
        first = _FIELDS[type(fact)][0]
        tag, known = self._tag, self._tags
        return {
            "$t": type(fact).__name__,
            first: getattr(fact, first),
            "bundles": [known.get(id(b)) or tag(b) for b in fact.bundles],
        }

    def _tag(self, bundle: Bundle) -> dict[str, str]:
        """``{"$b": ref}`` for a bundle; the first time, its record joins the next payload."""
        tag = self._tags.get(id(bundle))
        if tag is not None:
            return tag
        ref = bundle_id(bundle)
        known = self._by_ref.get(ref)
        n = 1
        while known is not None and known != bundle:  # same name, different bundle
            n += 1
            ref = f"{bundle_id(bundle)}#{n}"
            known = self._by_ref.get(ref)
        if known is None:
            self._by_ref[ref] = bundle
            self._new[ref] = self._bundle(bundle)
        tag = {"$b": ref}
        self._tags[id(bundle)] = tag
        self._alive.append(bundle)
        return tag

    def _bundle(self, bundle: Bundle) -> Any:
        cached = _RECORDS.get(id(bundle))
        if cached is not None and cached[0] is bundle:
            return cached[1]
        record: dict[str, Any] = {}
        for name in _BUNDLE_FIELDS:
            value = getattr(bundle, name)
            if value is None or value == ():
                continue
            if name == "properties":
                record[name] = [[p.type, p.value] for p in value if p.type not in _HEAVY_PROPERTIES]
            elif name == "constraints":
                record[name] = list(value)  # raw olm.constraint values, as in the catalog
            else:
                record[name] = self._value(value)  # never a bundle: no trace state involved
        return _remember(bundle, record)

    def _value(self, value: Any) -> Any:
        kind = type(value)
        if kind in _SCALARS:
            return value
        if kind is Bundle:
            return self._tag(value)
        if kind is tuple or kind is list:
            return [self._value(item) for item in value]
        fields = _FIELDS.get(kind)
        if fields is not None:
            if kind in _CACHED:
                cached = _RECORDS.get(id(value))
                if cached is not None and cached[0] is value:
                    return cached[1]
            record = {"$t": kind.__name__}
            for name in fields:
                record[name] = self._value(getattr(value, name))
            return _remember(value, record) if kind in _CACHED else record
        if kind is Version:
            return {"$v": value.text}
        if kind is VersionRange:
            canonical = value.range_text()
            text = value.text
            return {"$r": canonical} if text == canonical else {"$r": canonical, "text": text}
        if kind is GVK:
            return {"$g": [value.group, value.version, value.kind]}
        if kind is ExtensionConstraint:
            return {"$c": value.text}
        raise TypeError(f"the trace codec has no JSON form for {kind.__name__}")

    # -- context -------------------------------------------------------------------------------
    def capture(self, context: ResolutionContext) -> ResolutionContext:
        """Record what the resolution asks its catalogs. With every known catalog at hand
        (``context.known``: suggestions may add a source), those are recorded, and the
        request's sources are read through a restricted view of the same recording."""
        sources = context.request.sources
        whole = context.known is not None
        recording = RecordingSource(context.known or context.catalogs)
        catalogs = recording.restricted(sources) if whole and sources else recording
        self._recording = recording
        self._context = context
        self._whole = whole
        self._warnings = list(context.warnings)
        # A fresh candidate order: the old one caches answers the recording would not see.
        return dataclasses.replace(
            context,
            catalogs=catalogs,
            order=CandidateOrder(catalogs),
            known=recording if whole else None,
        )

    def snapshot(self) -> dict[str, Any] | None:
        if self._recording is None or self._context is None:
            return None
        calls = [
            {
                "call": method,
                "args": [self._value(a) for a in args],
                "answer": self._value(answer),
            }
            for (method, args), answer in self._recording.calls.items()
        ]
        snapshot: dict[str, Any] = {}
        if self._new:
            snapshot["bundles"], self._new = self._new, {}
        snapshot["request"] = self._value(self._context.request)
        if self._whole:
            snapshot["known"] = True  # the calls are of every known catalog (see capture)
        snapshot["warnings"] = self._warnings
        snapshot["calls"] = calls
        return snapshot


def _position(applied: AppliedConstraint) -> int:
    """Which of its variable's constraints this is (by identity: explanations look facts up by
    the constraint object)."""
    for n, own in enumerate(applied.variable.constraints):
        if own is applied.constraint:
            return n
    raise ValueError(f"constraint not found on variable {applied.variable.id}")


class OLMDecoder:
    """Reads the payloads of one trace in order, sharing bundles and variables between them."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.bundles: dict[str, Bundle] = {}
        self.latest: dict[str, OLMVariable] = {}

    def decode(self, payload: dict[str, Any]) -> Batch[Any]:
        self._bundles(payload)
        variables: list[OLMVariable] = []
        for item in payload["variables"]:
            if isinstance(item, str):
                variables.append(self.latest[item])
            else:
                variable = self._variable(item)
                self.latest[variable.id] = variable
                variables.append(variable)
        raw_core = payload.get("core")
        core = None
        if raw_core is not None:
            by_id = {v.id: v.variable for v in variables}
            core = tuple(AppliedConstraint(by_id[i], by_id[i].constraints[n]) for i, n in raw_core)
        return Batch(tuple(variables), core)

    def _bundles(self, payload: dict[str, Any]) -> None:
        for ref, record in payload.get("bundles", {}).items():
            self.bundles[ref] = self._bundle(record)

    def _variable(self, record: dict[str, Any]) -> OLMVariable:
        variable = Variable(record["id"], [decode_constraint(c) for c in record["constraints"]])
        facts = tuple(self._value(f) for f in record["facts"])
        ref = record.get("bundle")
        return OLMVariable(
            record["kind"], variable, facts, None if ref is None else self.bundles[ref]
        )

    def _bundle(self, record: dict[str, Any]) -> Bundle:
        values: dict[str, Any] = {}
        for name, value in record.items():
            if name == "properties":
                values[name] = tuple(Property(t, v) for t, v in value)
            elif name == "constraints":
                values[name] = tuple(value)
            else:
                values[name] = self._value(value)
        return Bundle(**values)

    def _value(self, value: Any) -> Any:
        if type(value) is list:
            return tuple(self._value(item) for item in value)
        if type(value) is not dict:
            return value
        if "$b" in value:
            return self.bundles[value["$b"]]
        if "$t" in value:
            cls = _CLASSES[value["$t"]]
            return cls(**{k: self._value(v) for k, v in value.items() if k != "$t"})
        if "$v" in value:
            return _version(value["$v"])
        if "$r" in value:
            parsed = VersionRange.parse(value["$r"])
            return VersionRange(parsed.intervals, text=value.get("text"))
        if "$g" in value:
            return GVK(*value["$g"])
        if "$c" in value:
            return ExtensionConstraint.parse(value["$c"])
        raise ValueError(f"unknown value record {sorted(value)}")

    def restore(self, snapshot: dict[str, Any]) -> ResolutionContext:
        self._bundles(snapshot)
        answers: dict[CallKey, Any] = {
            (call["call"], tuple(self._value(a) for a in call["args"])): self._value(call["answer"])
            for call in snapshot["calls"]
        }
        source = ReplayedSource(answers, self.where)
        request = self._value(snapshot["request"])
        if not isinstance(request, ResolutionRequest):
            raise ValueError("the context record holds no request")
        warnings = snapshot["warnings"]
        if type(warnings) is not list or not all(type(w) is str for w in warnings):
            raise ValueError("its warnings are not a list of strings")
        if not snapshot.get("known"):  # recorded of the request's sources alone
            return ResolutionContext(source, request, CandidateOrder(source), warnings)
        catalogs = source.restricted(request.sources) if request.sources else source
        return ResolutionContext(
            catalogs, request, CandidateOrder(catalogs), warnings, known=source
        )


def _version(text: str) -> Version:
    try:
        return Version.parse(text)
    except VersionError:
        return Version.parse_tolerant(text)
