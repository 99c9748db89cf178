"""Suggestions as data: changes to a request, checked by resolving the changed request.

An explanation proposes ways out (``explanation.py`` picks them from the facts of the minimal
conflict); each is a :class:`RequestChange` that knows how to apply itself to a request, how to
say itself in words and how to write itself as JSON (``{"kind": ...}``), so a web page can turn
it into a button. Before an answer is shown, :func:`checked` applies each change, resolves the
changed request with the same pipeline and keeps only the changes that resolve — a suggestion
deppy prints is one it has seen work. Advice that no request change can express (add a catalog
deppy does not have) is kept as advice: its kind says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from deppy.catalog.semver import Version
from deppy.errors import DeppyError
from deppy.explain import Explanation, Suggestion
from deppy.explain.render import SCREEN_WIDTH
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ExtensionTerms, RequiredPackage, ResolutionRequest
from deppy.resolution.request_parsing import parse_require

Resolve = Callable[[ResolutionRequest], Resolution | None]
"""Resolves a changed request with the pipeline the user ran; None when out of time."""


def _requirement_fields(requirement: RequiredPackage) -> dict[str, Any]:
    """A requirement in the mapping form of request files (``required: {name, ...}``)."""
    fields: dict[str, Any] = {"name": requirement.package}
    if requirement.versions_text:
        fields["versionRange"] = requirement.versions_text
    if requirement.channel:
        fields["channel"] = requirement.channel
    if requirement.catalog:
        fields["catalog"] = requirement.catalog
    return fields


@dataclass(frozen=True, slots=True)
class ReplaceRequirement:
    """Ask for other versions or another channel of a required package: ``spec`` is the
    ``--require`` SPEC the user can paste, parsed by the same parser."""

    index: int
    spec: str
    why: str = ""
    ask: str = ""  # the package probably meant by a name no catalog has: "did you mean …?"

    def requirement(self) -> RequiredPackage:
        return parse_require(self.spec)

    def apply(self, request: ResolutionRequest) -> ResolutionRequest:
        required = list(request.required)
        required[self.index] = self.requirement()
        return replace(request, required=tuple(required))

    def text(self, request: ResolutionRequest) -> str:
        """The command first (what to paste), then why: a screen that cuts the line keeps the
        part that matters."""
        if self.ask:
            return f"did you mean {self.ask}? require '{self.spec}'"
        old = request.required[self.index].describe()
        why = self.why.rstrip(": ")
        return f"require '{self.spec}' instead of '{old}'" + (f" — {why}" if why else "")

    def short(self, request: ResolutionRequest) -> str:
        if self.ask:
            return f"did you mean {self.spec}? require '{self.spec}'"
        old = request.required[self.index].describe()
        instead = f"require '{self.spec}' instead of '{old}'"
        return instead if len(instead) <= SCREEN_WIDTH - 4 else f"require '{self.spec}'"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": "replace-requirement",
            "index": self.index,
            "spec": self.spec,
            "requirement": _requirement_fields(self.requirement()),
        }


_DROPS = {
    # request field -> (kind, words before the entry, words after it)
    "required": ("drop-requirement", "drop the requirement ", ""),
    "installed": ("drop-installed", "uninstall ", " first"),
    "exclude": ("lift-exclusion", "lift the restriction ", ""),
}


@dataclass(frozen=True, slots=True)
class DropEntry:
    """Remove one entry of the request: a requirement, an installed bundle (uninstall it first,
    so it no longer constrains the answer), or an exclusion. ``field`` names the request's list."""

    field: str  # "required" | "installed" | "exclude"
    index: int
    why: str = ""

    def apply(self, request: ResolutionRequest) -> ResolutionRequest:
        entries: tuple[Any, ...] = getattr(request, self.field)
        kept: dict[str, Any] = {self.field: entries[: self.index] + entries[self.index + 1 :]}
        return replace(request, **kept)

    def short(self, request: ResolutionRequest) -> str:
        return ""

    def text(self, request: ResolutionRequest) -> str:
        _, before, after = _DROPS[self.field]
        entry = getattr(request, self.field)[self.index]
        extension = getattr(entry, "extension", None)
        if extension is not None:  # an OLM v1 request: the object to leave out
            return f"{self.why}leave out ClusterExtension {extension.name}"
        return f"{self.why}{before}{entry.describe()}{after}"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": _DROPS[self.field][0], "index": self.index}


@dataclass(frozen=True, slots=True)
class SetCluster:
    """Resolve for another cluster version: what the bundles named in ``why`` support."""

    openshift_version: Version | None
    kube_version: Version | None
    why: str

    def apply(self, request: ResolutionRequest) -> ResolutionRequest:
        cluster = replace(
            request.cluster,
            **{
                key: value
                for key, value in (
                    ("openshift_version", self.openshift_version),
                    ("kube_version", self.kube_version),
                )
                if value is not None
            },
        )
        return replace(request, cluster=cluster)

    def text(self, request: ResolutionRequest) -> str:
        return self.why

    def short(self, request: ResolutionRequest) -> str:
        return ""

    def as_dict(self) -> dict[str, Any]:
        ocp, kube = self.openshift_version, self.kube_version
        return {
            "kind": "set-cluster",
            "openshiftVersion": None if ocp is None else f"{ocp.major}.{ocp.minor}",
            "kubernetesVersion": None if kube is None else str(kube),
        }


@dataclass(frozen=True, slots=True)
class AddSource:
    """Resolve with one more of the catalogs deppy knows (stored, or given with ``--catalog``)
    that the request's ``sources`` leave out; ``offers`` says what it brings, from the
    resolution that verified the change ("tektoncd-operator 0.23.0")."""

    source: str
    offers: str = field(default="", compare=False)  # the same change, whatever it brings
    wanted: str = field(default="", compare=False)  # the missing package, named first

    def apply(self, request: ResolutionRequest) -> ResolutionRequest:
        if not request.sources or self.source in request.sources:
            return request  # every known catalog is already read: nothing to add
        return replace(request, sources=(*request.sources, self.source))

    def text(self, request: ResolutionRequest) -> str:
        what = f" offers {self.offers}" if self.offers else " has what is missing"
        return f"catalog {self.source}{what}: {self.short(request)}"

    def short(self, request: ResolutionRequest) -> str:
        return _add_source(self.source)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "add-source", "source": self.source}

    def seen(self, outcome: Resolution) -> AddSource:
        """The change, saying what the catalog brought to the resolution that verified it."""
        brought = [s for s in outcome.selection or () if s.catalog == self.source]
        brought.sort(key=lambda s: s.package != self.wanted)
        if not brought:
            return self
        return replace(self, offers=f"{brought[0].package} {brought[0].version}")


@dataclass(frozen=True, slots=True)
class Advice:
    """What no change of the request can express, so deppy cannot try it: add a catalog it
    does not have (``kind`` "add-catalog", ``need`` what to offer), lift a restriction that a
    pipeline file imposes ("edit-pipeline")."""

    kind: str
    advice: str
    need: str | None = None
    package: str | None = None
    brief: str = ""

    def apply(self, request: ResolutionRequest) -> ResolutionRequest | None:
        return None  # not a change of the request: nothing to try

    def text(self, request: ResolutionRequest) -> str:
        return self.advice

    def short(self, request: ResolutionRequest) -> str:
        return self.brief

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.need is not None:
            data["need"] = self.need
        if self.package is not None:
            data["package"] = self.package
        return data


@dataclass(frozen=True, slots=True)
class ChangeExtension:
    """Change one field of a ClusterExtension (an OLM v1 request): ``path`` is the field under
    ``spec.source.catalog`` (version, channels, upgradeConstraintPolicy, selector), ``value``
    what to write there (None: remove the field), ``terms`` the extension's terms after it."""

    index: int
    path: str
    value: Any = field(hash=False)
    terms: ExtensionTerms = field(compare=False, hash=False)
    why: str = field(default="", compare=False)

    def apply(self, request: ResolutionRequest) -> ResolutionRequest:
        required = list(request.required)
        old = required[self.index]
        constraint = self.terms.constraint
        package = str(self.value) if self.path == "packageName" else old.package
        terms = self.terms
        if self.immutable:  # a new ClusterExtension: nothing installed yet
            terms = replace(terms, name=self.new_name, installed=None)
        required[self.index] = replace(
            old,
            package=package,
            extension=terms,
            versions_text=constraint.text if constraint else "",
            text=f"ClusterExtension {terms.name}",
        )
        return replace(request, required=tuple(required))

    @property
    def keeps_asked(self) -> bool:
        """Leaves the version range as asked (the text shows such ways out first)."""
        return self.path != "version"

    @property
    def immutable(self) -> bool:
        """OLM v1 refuses an edit of ``packageName`` once the extension is installed (as of
        ``spec.namespace``): the way out is a new ClusterExtension beside it."""
        return self.path in IMMUTABLE_FIELDS and self.terms.installed is not None

    @property
    def new_name(self) -> str:
        """The new ClusterExtension's name: the package's, as deppy's own plans name them."""
        return str(self.value)

    def _edit(self) -> str:
        path = f"spec.source.catalog.{self.path}"
        if self.immutable:
            return f"create ClusterExtension {self.new_name} with {path}: {_yaml_flow(self.value)}"
        if self.value is None:
            return f"remove {path}"
        return f"set {path}: {_yaml_flow(self.value)}"

    def text(self, request: ResolutionRequest) -> str:
        if self.immutable:
            edit = (
                f"{self._edit()} (installed ClusterExtension {self.terms.name} cannot change "
                f"{self.path}; delete it once {self.new_name} is installed)"
            )
        else:
            edit = f"{self._edit()} in ClusterExtension {self.terms.name}"
        return edit + (f" — {self.why}" if self.why else "")

    def short(self, request: ResolutionRequest) -> str:
        return self._edit()

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": "new-extension" if self.immutable else "change-extension",
            "index": self.index,
            "extension": self.terms.name,
            "field": f"spec.source.catalog.{self.path}",
            "value": self.value,
        }
        if self.immutable:
            data["name"] = self.new_name
        return data


IMMUTABLE_FIELDS = ("packageName",)
"""Fields of ``spec.source.catalog`` OLM v1 refuses to change once installed (and
``spec.namespace``, which no way out changes)."""


@dataclass(frozen=True, slots=True)
class ChangeCatalog:
    """Make a ClusterCatalog ``Available`` (``spec.availabilityMode``): every ClusterExtension
    whose selector chose it then reads its content."""

    catalog: str
    why: str = field(default="", compare=False)

    def apply(self, request: ResolutionRequest) -> ResolutionRequest:
        required = []
        for requirement in request.required:
            terms = requirement.extension
            found = [c for c in terms.unavailable if c.name == self.catalog] if terms else []
            if terms is not None and found:
                terms = replace(
                    terms,
                    catalogs=(*terms.catalogs, *found),
                    unavailable=tuple(c for c in terms.unavailable if c not in found),
                )
                requirement = replace(requirement, extension=terms)
            required.append(requirement)
        return replace(request, required=tuple(required))

    keeps_asked = True  # the ClusterExtension's fields stay as written

    def _edit(self) -> str:
        return f'set spec.availabilityMode: "Available" in ClusterCatalog {self.catalog}'

    def text(self, request: ResolutionRequest) -> str:
        return self._edit() + (f" — {self.why}" if self.why else "")

    def short(self, request: ResolutionRequest) -> str:
        return self._edit()

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": "change-catalog",
            "catalog": self.catalog,
            "field": "spec.availabilityMode",
            "value": "Available",
        }


def _yaml_flow(value: Any) -> str:
    """A field's value as one line of YAML (JSON is YAML): ``"0.18.0"``, ``["stable"]``."""
    import json

    return json.dumps(value, sort_keys=True)


RequestChange = (
    ReplaceRequirement
    | DropEntry
    | SetCluster
    | AddSource
    | Advice
    | ChangeExtension
    | ChangeCatalog
)


def _add_source(source: str, words: str = "cli") -> str:
    return f"add {source} to spec.sources" if words == "resource" else f"add `--source {source}`"


def in_resource_words(explanation: Explanation) -> Explanation:
    """The explanation as a reader of a resource sees it (the service's answers, an
    ActiveResolution's status): a catalog to add is named by the field that lists them,
    ``spec.sources``, not by the CLI's ``--source``."""
    suggestions = []
    for found in explanation.suggestions:
        if found.change.get("kind") == "add-source":
            source = str(found.change["source"])
            cli, resource = _add_source(source), _add_source(source, "resource")
            found = replace(
                found,
                text=found.text.removesuffix(cli) + resource,
                short=found.short.removesuffix(cli) + resource if found.short else found.short,
            )
        suggestions.append(found)
    return replace(explanation, suggestions=tuple(suggestions))


def suggestion(change: RequestChange, request: ResolutionRequest) -> Suggestion:
    keeps = isinstance(change, (ChangeExtension, ChangeCatalog)) and change.keeps_asked
    return Suggestion(change.text(request), change.as_dict(), change.short(request), keeps)


def asks_for_something(request: ResolutionRequest) -> bool:
    """A request a front door accepts: it requires or keeps something (an empty one is
    refused: "nothing to resolve"), so dropping the last requirement is no way out."""
    return bool(request.required or request.installed)


def checked(
    explanation: Explanation,
    changes: Sequence[RequestChange],
    request: ResolutionRequest,
    resolve: Resolve,
) -> Explanation:
    """The explanation with the changes that resolve as its suggestions: first, for each
    requirement at the root of the failure, the version a resolution picks once the requirement
    is relaxed (to its range without channel/catalog, then to any version); then every proposed
    change that resolves, in order. A change that leaves the request as it was or asking for
    nothing, cannot be applied, or does not resolve is not shown; advice is kept."""
    shown: list[RequestChange] = [*_relaxed_alternatives(explanation, request, resolve)]
    for change in changes:
        if change in shown:
            continue
        try:
            changed = change.apply(request)
        except DeppyError:
            continue  # e.g. a version the range grammar cannot express
        if changed is None:
            shown.append(change)  # advice: nothing deppy can try
            continue
        if changed == request or not asks_for_something(changed):
            continue
        outcome = resolve(changed)
        if outcome is None:
            break  # out of time: show what was checked
        if outcome.resolved:
            shown.append(change.seen(outcome) if isinstance(change, AddSource) else change)
    suggestions = tuple(dict.fromkeys(suggestion(c, request) for c in shown))
    return replace(explanation, suggestions=suggestions)


def _relaxed_alternatives(
    explanation: Explanation, request: ResolutionRequest, resolve: Resolve
) -> list[RequestChange]:
    found: list[RequestChange] = []
    for n, requirement in enumerate(request.required):
        if f"required package {requirement.describe()}" not in explanation.roots:
            continue
        if requirement.extension is not None:
            continue  # a ClusterExtension's ways out are its own fields (olmv1.suggestions)
        package = requirement.package
        tries = [
            RequiredPackage(package, requirement.versions, requirement.versions_text),
            RequiredPackage(package),
        ]
        for relaxed in tries:
            if relaxed.describe() == requirement.describe():
                continue
            required = list(request.required)
            required[n] = relaxed
            outcome = resolve(replace(request, required=tuple(required)))
            if outcome is None:
                return found
            chosen = [s for s in outcome.selection or () if s.package == package]
            if chosen:
                item = chosen[0]
                why = (
                    f"{package} {item.version} resolves (channel {item.channel}, "
                    f"catalog {item.catalog}): "
                )
                change = ReplaceRequirement(n, f"{package}@{item.version}", why)
                try:
                    same = change.requirement().describe() == requirement.describe()
                except DeppyError:
                    same = True  # not expressible as a SPEC: not a suggestion to paste
                if not same:
                    found.append(change)
                break
    return found
