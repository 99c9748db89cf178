"""A corpus of unresolvable requests on ../shared catalogs, and the three checks each must pass.

The cases: every bundle that ``deppy catalog check`` finds uninstallable in a shared catalog,
requested at its exact version from a store holding all of them — once with ``--source`` naming
its own catalog (a store of several catalogs, read in part: the others may hold what is
missing), once from the whole store. Each case is run as a user runs it (``deppy resolve``, text,
stdout and stderr together) and asked for its data the way the front doors ask
(``resolve_with_options``):

- the text fits a screen: at most 10 lines of at most 100 characters, none cut short ("…");
- every suggestion shown resolves once applied (advice that is no change, e.g. "find a catalog
  offering …", is counted apart);
- most cases (the issue asks 90%) offer at least one suggestion that resolves.

tests/test_explanation_corpus.py checks a deterministic sample; benchmarks/explanations.py runs
the whole corpus and prints the figures.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from deppy.catalog.bundle_tree import load_any_catalog
from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.semver import Version
from deppy.cli.main import cli, register_commands
from deppy.explain import explanation_as_dict
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.request_parsing import parse_require
from deppy.resolution.resolver import resolve
from deppy.resolution.suggestions import AddSource, DropEntry, ReplaceRequirement, SetCluster
from deppy.store import Store
from deppy.workflows.catalog_check import check_catalog
from deppy.workflows.resolve import resolve_with_options

SHARED_CATALOGS = {
    "community": "community-operators-prod-v4.18",
    "operatorhubio": "operatorhubio-upstream-2021",
    "odf": "odf-operator-dev-catalog",
    "redhat": "redhat-operator-index-excerpts",
}
LINES, WIDTH = 10, 100
ADVICE = ("add-catalog", "edit-pipeline")  # no change of the request: nothing to resolve


def fill_store(home: Path, shared: Path) -> Store:
    """A store in ``home`` holding every shared catalog under a short name."""
    store = Store(home)
    for name, folder in SHARED_CATALOGS.items():
        store.add(load_any_catalog(shared / "catalogs" / folder, name=name))
    return store


@dataclass(frozen=True, slots=True)
class Case:
    """``deppy resolve --require SPEC`` from the store, reading only ``sources`` if given."""

    spec: str
    sources: tuple[str, ...] = ()

    def args(self) -> list[str]:
        return [a for s in self.sources for a in ("--source", s)] + ["--require", self.spec]

    def request(self) -> ResolutionRequest:
        return ResolutionRequest(required=(parse_require(self.spec),), sources=self.sources)

    def __str__(self) -> str:
        return " ".join(self.args())


def cases(source: BundleSource) -> list[Case]:
    """Every bundle a catalog check finds uninstallable, alone in its catalog (``--source``)
    and with every stored catalog, in a stable order."""
    found: list[Case] = []
    for name in source.names():
        alone = check_catalog(source.restricted([name]), name, ClusterFacts())
        found += [Case(f"{f.bundle.package}@{f.bundle.version}", (name,)) for f in alone.failures]
        together = check_catalog(source, name, ClusterFacts())
        found += [Case(f"{f.bundle.package}@{f.bundle.version}") for f in together.failures]
    return found


def sample(items: Sequence[Case], every: int) -> list[Case]:
    """Every ``every``-th case, from the first: deterministic, and spread over the corpus."""
    return list(items[::every])


def apply_change(request: ResolutionRequest, change: dict[str, Any]) -> ResolutionRequest | None:
    """A suggestion's change applied as a program reads it from ``-o json`` (None: advice)."""
    kind = change["kind"]
    if kind == "set-cluster":
        ocp, kube = change["openshiftVersion"], change["kubernetesVersion"]
        return SetCluster(
            Version.parse_tolerant(ocp) if ocp else None,
            Version.parse_tolerant(kube) if kube else None,
            "",
        ).apply(request)
    if kind == "replace-requirement":
        return ReplaceRequirement(change["index"], change["spec"]).apply(request)
    if kind == "add-source":
        return AddSource(change["source"]).apply(request)
    drops = {"drop-requirement": "required", "drop-installed": "installed"}
    drops["lift-exclusion"] = "exclude"
    if kind in drops:
        return DropEntry(drops[kind], change["index"]).apply(request)
    assert kind in ADVICE, f"a suggestion of unknown kind {kind}"
    return None


@dataclass
class Outcome:
    """What one case showed: its screen, and how its suggestions fared once applied."""

    case: Case
    resolved: bool
    screen: list[str]
    resolving: list[str] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)

    def screen_problems(self) -> list[str]:
        problems = []
        if len(self.screen) > LINES:
            problems.append(f"{len(self.screen)} lines")
        problems += [f"{len(line)} columns: {line}" for line in self.screen if len(line) > WIDTH]
        problems += [f"cut: {line}" for line in self.screen if line.rstrip().endswith("…")]
        return problems


def run_case(case: Case, source: BundleSource) -> Outcome:
    """``deppy resolve`` as a user runs it (stdout and stderr), and its suggestions tried."""
    register_commands()
    result = CliRunner().invoke(cli, ["resolve", *case.args()])
    screen = (result.stderr + result.stdout).splitlines()
    outcome = Outcome(case, result.exit_code == 0, screen)
    if result.exit_code != 1:
        return outcome
    request = case.request()
    resolution = resolve_with_options(source, request, timeout=None, pipeline=None, trace=None)
    assert resolution.explanation is not None, case
    for shown in explanation_as_dict(resolution.explanation)["suggestions"]:
        changed = apply_change(request, shown["change"])
        if changed is None:
            outcome.advice.append(shown["text"])
        elif changed != request and resolve(source, changed).resolved:
            outcome.resolving.append(shown["text"])
        else:
            outcome.failing.append(shown["text"])
    return outcome


def run_cases(items: Sequence[Case], source: BundleSource) -> Iterator[Outcome]:
    for case in items:
        yield run_case(case, source)
