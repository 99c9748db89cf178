"""The lifecycle soak: deppy's controller on a real API server (../shared/k8s) for a few hundred
steps of what an afternoon on a cluster brings, with the invariants of tests/soak/invariants.py
checked and printed after every step.

Steps (drawn from one seeded ``random.Random``: the same seed gives the same sequence):
Operators created, edited (channel, version range) and deleted; batches of Inputs applied in one
``kubectl apply``; Inputs deleted; ActiveResolutions created, edited and deleted; a simulated
admin approving pending proposals (``deppy approve`` or a status write); the catalog changed
(versions published with replaces/skips, deprecated, removed, a package added), which a
ClusterCatalog serves too under a new digest; Inputs of class olm-v1 in the first namespace,
applied, deleted and approved, whose approved sets become OLM v1 ClusterExtensions.

Faults, in turn: the catalog's HTTP source down while the Catalog reloads; the API server frozen
(SIGSTOP/SIGCONT); etcd frozen; the working controller killed -9 and a new replica started; the
working replica stopped so that the standby takes over. Two replicas run in a kopf peering.
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import urllib3
import yaml

from deppy.controller.conditions import set_condition
from deppy.controller.kube import ApiError, Kube
from tests.controller_env import (
    DEPPY,
    Controller,
    client,
    install,
    install_olm_v1,
    serve_as_catalogd,
)
from tests.fbc_server import CatalogServer, serve_catalog
from tests.kube import KubeCluster
from tests.olmv1_objects import cluster_catalog
from tests.ports import free_port
from tests.soak import invariants as inv
from tests.soak.catalog import SoakCatalog

API = "deppy.io/v1alpha1"
CATALOG = "soak"
# OLM v1: a ClusterCatalog on the same content (preferred: its priority is higher), and the
# Inputs of class olm-v1 in the first namespace (ClusterExtensions are cluster-scoped, one per
# package: one namespace hands its sets to OLM v1)
CLUSTER_CATALOG = "soak-olm"
AUTO_CLASS, AUTO_PROVISIONER = "soak-auto", "soak-allow"


@dataclass(frozen=True)
class Profile:
    name: str
    steps: int
    fault_every: int
    namespaces: int
    seed: int = 18
    freeze_seconds: float = 2.5
    outage_seconds: float = 2.5
    # nothing changes for this long: settled (longer than the controller's 1 s quiet period
    # per namespace, plus a resolution)
    quiet_seconds: float = 1.8
    settle_timeout: float = 150.0
    rss_limit_mb: float = 700.0


FULL = Profile("full", steps=192, fault_every=9, namespaces=12)  # + 8 or more in faults
SHORT = Profile("short", steps=25, fault_every=5, namespaces=10)
FAULTS = ("catalog-outage", "apiserver-freeze", "kill-9", "etcd-freeze", "takeover")


@dataclass
class Report:
    steps: int = 0
    faults: int = 0
    violations: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)  # invariant -> times checked
    settle: dict[str, list[float]] = field(default_factory=dict)  # fault -> settle seconds
    step_settle: list[float] = field(default_factory=list)
    max_objects: int = 0
    max_rss_mb: float = 0.0

    def summary(self) -> str:
        violations = len(self.violations)
        return f"soak: {self.steps} steps, {self.faults} faults, {violations} invariant violations"


class PatientKube(Kube):
    """The soak's own API calls, tried again when the API server is slow to answer (a shared,
    busy machine): a timeout of the soak's client is not something the controller did. Writes
    are safe to repeat: create returns the existing object, delete ignores a missing one."""

    def call(self, method: str, path: str, body: Any = None, **options: Any) -> dict[str, Any]:
        for attempt in range(4):
            try:
                return super().call(method, path, body, **options)
            except ApiError as error:
                if error.status < 500 or attempt == 3:
                    raise
            except (OSError, urllib3.exceptions.HTTPError):
                if attempt == 3:
                    raise
            time.sleep(2.0 * (attempt + 1))
        raise AssertionError("unreachable")


class Replicas:
    """``deppy controller`` processes in one kopf peering: the highest priority alive works."""

    def __init__(self, kube: KubeCluster, logs: Path, peering: str) -> None:
        self.kube, self.logs, self.peering = kube, logs, peering
        self.alive: dict[int, Controller] = {}  # priority -> process
        self.high, self.low, self.started = 1000, 500, 0

    def start(self, priority: int) -> Controller:
        self.started += 1
        log = self.logs / f"controller-{self.started}-p{priority}.log"
        args = [
            DEPPY,
            "controller",
            "--kubeconfig",
            str(self.kube.kubeconfig),
            "--health-port",
            str(free_port()),
            "--peering",
            self.peering,
            "--priority",
            str(priority),
        ]
        with log.open("wb") as out:
            process = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        self.alive[priority] = Controller(process, 0, log)
        return self.alive[priority]

    @property
    def active(self) -> int:
        return max(self.alive)

    def kill9(self) -> str:
        priority = self.active
        self.alive.pop(priority).process.kill()
        self.high += 1
        self.start(self.high)
        return (
            f"controller (priority {priority}) killed -9; a new one started (priority {self.high})"
        )

    def takeover(self) -> str:
        priority = self.active
        code = self.alive.pop(priority).stop()
        standby = self.active
        self.low -= 1
        self.start(self.low)
        return (
            f"working replica (priority {priority}) stopped (exit {code}); standby {standby} "
            f"takes over; a new standby started (priority {self.low})"
        )

    def rss_mb(self) -> float:
        found = 0.0
        for controller in self.alive.values():
            try:
                text = Path(f"/proc/{controller.process.pid}/status").read_text()
            except OSError:
                continue
            for line in text.splitlines():
                if line.startswith("VmRSS:"):
                    found = max(found, int(line.split()[1]) / 1024)
        return found

    def tracebacks(self) -> list[str]:
        """Each living replica's first traceback: its log's name, the line before it and the
        traceback itself, so that a violation can be read without the log."""
        found = []
        for controller in self.alive.values():
            lines = controller.log_text().splitlines()
            starts = [n for n, line in enumerate(lines) if line.startswith("Traceback")]
            if starts:
                first = starts[0]
                end = next(
                    (n for n in range(first + 1, len(lines)) if not lines[n].startswith(" ")),
                    len(lines) - 1,
                )
                excerpt = "\n".join(lines[max(first - 1, 0) : end + 1])
                found.append(f"{controller.log.name} ({len(starts)} in all):\n{excerpt}")
        return found

    def stop_all(self) -> None:
        for priority in sorted(self.alive):
            self.alive.pop(priority).stop()


class Soak:
    def __init__(
        self, kube: KubeCluster, workdir: Path, profile: Profile, out: Callable[[str], None]
    ) -> None:
        self.kube, self.workdir, self.profile, self.out = kube, workdir, profile, out
        self.api: Kube = PatientKube(client(kube).client)
        self.rng = random.Random(profile.seed)
        self.catalog = SoakCatalog()
        self.history = inv.History()
        self.report = Report()
        self.namespaces = [f"soak-{profile.seed}-{n:02d}" for n in range(profile.namespaces)]
        self.operators: dict[str, dict[str, dict[str, Any]]] = {n: {} for n in self.namespaces}
        self.inputs: dict[str, set[str]] = {n: set() for n in self.namespaces}
        self.resolutions: dict[str, dict[str, str]] = {n: {} for n in self.namespaces}
        self.revision = 0
        self.attempt = 0
        self.upgrades_cache: dict[tuple[str, ...], list[tuple[str, list[str]]] | None] = {}
        self.server: CatalogServer
        self.replicas: Replicas

    # -- set-up ------------------------------------------------------------------------------
    @contextmanager
    def running(self) -> Iterator[Soak]:
        install(self.kube)
        peering = f"soak-{self.profile.seed}"
        self.api.create(
            "clusterkopfpeerings",
            {
                "apiVersion": "kopf.dev/v1",
                "kind": "ClusterKopfPeering",
                "metadata": {"name": peering},
            },
        )
        self.api.create(
            "provisionerclasses",
            {
                "apiVersion": API,
                "kind": "ProvisionerClass",
                "metadata": {"name": AUTO_PROVISIONER},
                "provisioner": "deppy.io/resolveset",
                "parameters": {"approval": "AllowAll"},
            },
        )
        subscription = self.api.get("inputclasses", "subscription")
        assert subscription is not None, "deppy manifests installed no InputClass subscription"
        parameters = {**subscription["parameters"], "provisionerClass": AUTO_PROVISIONER}
        self.api.create(
            "inputclasses",
            {
                "apiVersion": API,
                "kind": "InputClass",
                "metadata": {"name": AUTO_CLASS},
                "parameters": parameters,
            },
        )
        for namespace in self.namespaces:
            self.api.create(
                "namespaces",
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
            )
        self._record_revision()
        with ExitStack() as stack:
            self.server = stack.enter_context(serve_catalog(self.catalog.render()))
            self.api.create(
                "catalogs",
                {
                    "apiVersion": API,
                    "kind": "Catalog",
                    "metadata": {"name": CATALOG},
                    "spec": {"priority": 0, "source": {"http": {"url": self._url()}}},
                },
            )
            self._cluster_catalog()
            self.replicas = Replicas(self.kube, self.workdir, peering)
            stack.callback(self.replicas.stop_all)
            self.replicas.start(self.replicas.high)
            self.replicas.start(self.replicas.low)
            self._wait("the Catalog loaded", lambda: self._catalog_ready(True), 120)
            yield self

    def _cluster_catalog(self) -> None:
        """OLM v1's CRDs, and a ClusterCatalog whose status the soak writes as catalogd would:
        serving the content at the server's base URL, named by its digest."""
        install_olm_v1(self.kube)
        self.api.create("clustercatalogs", cluster_catalog(CLUSTER_CATALOG, priority=1))
        self._serve_cluster_catalog()

    def _serve_cluster_catalog(self) -> None:
        ref = "example.com/soak@" + self.catalog.digest()
        serve_as_catalogd(self.api, CLUSTER_CATALOG, self.server.url, ref)

    def _url(self) -> str:
        return f"{self.server.url}?revision={self.revision}&attempt={self.attempt}"

    def _record_revision(self) -> None:
        self.history.published.update(self.catalog.snapshot())

    def _catalog(self) -> dict[str, Any]:
        found = self.api.get("catalogs", CATALOG)
        assert found is not None
        return found

    def _catalog_ready(self, ready: bool) -> bool:
        found = inv.condition(self._catalog(), "Ready")
        return found is not None and (found.get("status") == "True") == ready

    def _wait(self, what: str, probe: Callable[[], Any], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if probe():
                return True
            time.sleep(0.2)
        self._violation("answered", f"timed out after {timeout:.0f} s waiting for {what}")
        return False

    # -- the run -----------------------------------------------------------------------------
    def run(self) -> Report:
        profile = self.profile
        self.out(
            f"soak profile {profile.name}: seed {profile.seed}, {profile.steps} steps, "
            f"a fault every {profile.fault_every} steps, {profile.namespaces} namespaces"
        )
        self.settle_and_check("start")
        for number in range(1, profile.steps + 1):
            # every fourth step is OLM v1's: an Input of class olm-v1 applied, or approved
            what = self._olm_v1(self.namespaces[0]) if number % 4 == 3 else self.step()
            self.report.steps += 1
            seconds = self.settle_and_check(f"step {number}/{profile.steps}: {what}")
            self.report.step_settle.append(seconds)
            if number % profile.fault_every == 0:
                kind = FAULTS[(number // profile.fault_every - 1) % len(FAULTS)]
                self.fault(kind)
        for traceback in self.replicas.tracebacks():
            self._violation("answered", f"a traceback in {traceback}")
        return self.report

    def settle(self) -> tuple[float, inv.World]:
        """Wait until every object is answered for its generation, no owned object outlives
        its owners, and nothing has changed for ``quiet_seconds``."""
        begin = time.monotonic()
        deadline = begin + self.profile.settle_timeout
        last: tuple[tuple[str, str, str], ...] = ()
        since = begin
        while True:
            world = inv.World.read(self.api, set(self.namespaces))
            fingerprint = world.fingerprint()
            now = time.monotonic()
            if fingerprint != last:
                last, since = fingerprint, now
            calm = not inv.unanswered(world) and not inv.orphans(world)
            if calm and now - since >= self.profile.quiet_seconds:
                return now - begin - self.profile.quiet_seconds, world
            if now > deadline:
                return now - begin, world
            time.sleep(0.25)

    def settle_and_check(self, label: str) -> float:
        seconds, world = self.settle()
        self.check(world, label, seconds)
        return seconds

    def check(self, world: inv.World, label: str, seconds: float) -> None:
        rss = self.replicas.rss_mb()
        self.report.max_rss_mb = max(self.report.max_rss_mb, rss)
        objects = sum(len(v) for v in world.objects.values())
        self.report.max_objects = max(self.report.max_objects, objects)
        found = {
            "answered": inv.unanswered(world),
            "approved-valid": inv.approved_sets(world, self.history),
            "one-pending": inv.pending_per_unit(world),
            "no-orphans": inv.orphans(world),
            "updates": inv.updates_agree(world, self.upgrades),
            "olmv1-extensions": inv.extensions_match(world),
            "rss": [f"controller RSS {rss:.0f} MB > {self.profile.rss_limit_mb:.0f} MB"]
            if rss > self.profile.rss_limit_mb
            else [],
        }
        bad = 0
        for name, problems in found.items():
            self.report.checked[name] = self.report.checked.get(name, 0) + 1
            for problem in problems:
                self._violation(name, problem)
                bad += 1
        state = "ok" if not bad else f"{bad} violated"
        self.out(
            f"{label} | settled {seconds:.1f} s, {objects} objects, RSS {rss:.0f} MB, "
            f"invariants {state}"
        )

    def _violation(self, invariant: str, text: str) -> None:
        """Recorded once: a violation that persists over several steps counts as one."""
        found = f"[{invariant}] {text}"
        if found not in self.report.violations:
            self.report.violations.append(found)
            self.out(f"  VIOLATION {found}")

    def upgrades(
        self, package: str, version: str, channel: str, bundle: str
    ) -> list[tuple[str, list[str]]] | None:
        """``deppy upgrades`` against the content served now (None while the source is down)."""
        if not self.server.server.up:  # type: ignore[attr-defined]
            return None
        key = (self.catalog.digest(), package, version, channel, bundle)
        if key not in self.upgrades_cache:
            spec = f"{package}@{version},channel={channel},bundle={bundle}"
            done = subprocess.run(
                [
                    DEPPY,
                    "upgrades",
                    "-q",
                    "--catalog",
                    self.server.url,
                    "--installed",
                    spec,
                    "-o",
                    "json",
                ],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
            )
            if done.returncode != 0:
                self.upgrades_cache[key] = None
            else:
                report = orjson.loads(done.stdout)[0]
                channels = [report["channel"]] if report.get("channel") else []
                channels += report.get("otherChannels") or []
                self.upgrades_cache[key] = [
                    (c["channel"], [u["bundle"] for u in c["updates"]])
                    for c in channels
                    if c.get("updates")
                ]
        return self.upgrades_cache[key]

    # -- steps -------------------------------------------------------------------------------
    def step(self) -> str:
        kinds = {
            "operator-create": 5,
            "operator-edit": 3,
            "operator-delete": 1.5,
            "inputs-apply": 1.5,
            "input-delete": 1,
            "resolution": 2,
            "resolution-delete": 0.5,
            "approve": 3,
            "catalog-change": 2,
        }
        kind = self.rng.choices(list(kinds), list(kinds.values()))[0]
        namespace = self.rng.choice(self.namespaces)
        return str(getattr(self, "_" + kind.replace("-", "_"))(namespace))

    def _packages(self) -> list[str]:
        return sorted(self.catalog.packages)

    def _operator_create(self, namespace: str) -> str:
        package = self.rng.choice(self._packages())
        if package in self.operators[namespace]:
            return self._operator_edit(namespace)
        spec: dict[str, Any] = {
            "catalog": {
                "name": CATALOG,
                "package": package,
                "channel": self.rng.choice(self.catalog.channels(package)),
            },
        }
        if self.rng.random() < 0.3:
            spec["version"] = f">={self.rng.choice(self.catalog.versions(package))}"
        if self.namespaces.index(namespace) % 2 and self.rng.random() < 0.6:
            spec["inputClass"] = AUTO_CLASS
        self.operators[namespace][package] = spec
        self.api.create(
            "operators",
            {
                "apiVersion": API,
                "kind": "Operator",
                "metadata": {"name": package, "namespace": namespace},
                "spec": spec,
            },
            namespace,
        )
        return f"{namespace}: Operator {package} created {orjson.dumps(spec).decode()}"

    def _operator_edit(self, namespace: str) -> str:
        names = sorted(self.operators[namespace])
        if not names:
            return self._operator_create(namespace)
        name = self.rng.choice(names)
        spec = self.operators[namespace][name]
        change = self.rng.choice(["channel", "range", "exact", "any"])
        if change == "channel":
            spec["catalog"]["channel"] = self.rng.choice(self.catalog.channels(name))
        elif change in ("range", "exact"):
            version = self.rng.choice(self.catalog.versions(name))
            spec["version"] = f">={version}" if change == "range" else version
        else:
            spec.pop("version", None)
        patch = {"spec": {"catalog": spec["catalog"], "version": spec.get("version")}}
        self.api.patch("operators", name, patch, namespace)
        return f"{namespace}: Operator {name} edited ({change}) {orjson.dumps(spec).decode()}"

    def _operator_delete(self, namespace: str) -> str:
        known = self.operators[namespace]
        return self._delete(namespace, "operators", known, self._operator_create)

    def _delete(
        self,
        namespace: str,
        plural: str,
        known: dict[str, Any] | set[str],
        otherwise: Callable[[str], str],
    ) -> str:
        """Delete one of the ``known`` objects (the soak's record), or do ``otherwise``."""
        names = sorted(known)
        if not names:
            return otherwise(namespace)
        name = self.rng.choice(names)
        if isinstance(known, set):
            known.discard(name)
        else:
            del known[name]
        self.api.delete(plural, name, namespace)
        return f"{namespace}: {plural} {name} deleted"

    def _inputs_apply(self, namespace: str) -> str:
        """Several Inputs in one ``kubectl apply``: they must be answered by one proposal."""
        packages = self.rng.sample(self._packages(), k=min(3, len(self.catalog.packages)))
        docs = [
            {
                "apiVersion": API,
                "kind": "Input",
                "metadata": {"name": f"in-{p}", "namespace": namespace},
                "spec": {
                    "inputClass": "subscription",
                    "constraints": [
                        {"type": "olm.catalog", "value": {"name": CATALOG, "package": p}}
                    ],
                },
            }
            for p in packages
        ]
        self.kube.kubectl("apply", "-n", namespace, "-f", "-", input=yaml.safe_dump_all(docs))
        self.inputs[namespace] |= {f"in-{p}" for p in packages}
        return f"{namespace}: Inputs {', '.join(packages)} applied together"

    def _olm_v1(self, namespace: str) -> str:
        """In the OLM v1 namespace (the first): approve its pending proposal when there is one,
        else apply an Input of class olm-v1 for a package (or delete one now and then)."""
        namespace = self.namespaces[0]
        pending = [
            i
            for i in self.api.list("instances", namespace)
            if (i["metadata"].get("labels") or {}).get(inv.UNIT) == inv.OLM_V1_UNIT
            and inv.condition(i, "Approved") is not None
            and not inv.is_true(i, "Approved")
            and not inv.is_true(i, "Superseded")
        ]
        if pending:
            return self._approve(namespace)
        mine = {n for n in self.inputs[namespace] if n.startswith("olm-")}
        fresh = [p for p in self._packages() if f"olm-{p}" not in mine]
        if mine and (not fresh or self.rng.random() < 0.25):
            name = self.rng.choice(sorted(mine))
            self.inputs[namespace].discard(name)
            self.api.delete("inputs", name, namespace)
            return f"{namespace}: OLM v1 Input {name} deleted"
        package = self.rng.choice(fresh)  # a package the unit does not ask for yet
        body = {
            "apiVersion": API,
            "kind": "Input",
            "metadata": {"name": f"olm-{package}", "namespace": namespace},
            "spec": {
                "inputClass": "olm-v1",
                "serviceAccount": "soak-installer",
                "constraints": [
                    {"type": "olm.catalog", "value": {"name": CLUSTER_CATALOG, "package": package}}
                ],
            },
        }
        self.kube.kubectl("apply", "-n", namespace, "-f", "-", input=yaml.safe_dump(body))
        self.inputs[namespace].add(f"olm-{package}")
        return f"{namespace}: OLM v1 Input for {package} applied (class olm-v1)"

    def _input_delete(self, namespace: str) -> str:
        return self._delete(namespace, "inputs", self.inputs[namespace], self._inputs_apply)

    def _resolution(self, namespace: str) -> str:
        package = self.rng.choice(self._packages())
        name = f"ar-{self.rng.randrange(3)}"
        version = self.rng.choice(self.catalog.versions(package))
        constraint = f'required("{package}", ">={version}")'
        body = {
            "apiVersion": API,
            "kind": "ActiveResolution",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"sources": [CATALOG], "constraints": [constraint]},
        }
        if name in self.resolutions[namespace]:
            self.api.patch("activeresolutions", name, {"spec": body["spec"]}, namespace)
            verb = "edited"
        else:
            self.api.create("activeresolutions", body, namespace)
            verb = "created"
        self.resolutions[namespace][name] = constraint
        return f"{namespace}: ActiveResolution {name} {verb}: {constraint}"

    def _resolution_delete(self, namespace: str) -> str:
        known = self.resolutions[namespace]
        return self._delete(namespace, "activeresolutions", known, self._resolution)

    def _approve(self, namespace: str) -> str:
        """The admin approves the namespace's oldest pending proposal (or, now and then, a
        superseded one: that must not make it approved)."""
        with_cli = self.rng.random() < 0.5
        pending = [
            i
            for i in self.api.list("instances", namespace)
            if not inv.is_true(i, "Approved") and not i["metadata"].get("deletionTimestamp")
        ]
        if not pending:
            return f"{namespace}: nothing to approve"
        pending.sort(key=lambda i: (i["metadata"]["creationTimestamp"], i["metadata"]["name"]))
        name = pending[0]["metadata"]["name"]
        if with_cli:
            done = subprocess.run(
                [
                    DEPPY,
                    "approve",
                    name,
                    "-n",
                    namespace,
                    "--kubeconfig",
                    str(self.kube.kubeconfig),
                ],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
            )
            how = f"deppy approve (exit {done.returncode}: {(done.stdout + done.stderr).strip()})"
        else:

            def approved(current: dict[str, Any]) -> dict[str, Any]:
                old = (current.get("status") or {}).get("conditions")
                return {
                    "conditions": set_condition(
                        old, "Approved", True, "ApprovedByUser", "approved by the soak's admin"
                    )
                }

            self.api.update_status("instances", name, namespace, approved)
            how = "a status write"
        return f"{namespace}: Instance {name} approved with {how}"

    def _catalog_change(self, namespace: str) -> str:
        what = self.catalog.mutate(self.rng)
        self._publish()
        return what

    def _publish(self) -> None:
        """Serve the new content, and point the Catalog at it (a new revision URL, as a
        catalogd-like server names a new image digest); wait until the controller loaded it."""
        before = (self._catalog().get("status") or {}).get("digest")
        self.revision += 1
        self._record_revision()
        self.server.server.body = self.catalog.render()  # type: ignore[attr-defined]
        self._point_catalog()
        self._serve_cluster_catalog()  # catalogd names the new content by its digest
        self._wait(
            f"catalog revision {self.revision} loaded",
            lambda: (self._catalog().get("status") or {}).get("digest") not in (None, before),
            60,
        )

    def _point_catalog(self) -> None:
        patch = {"spec": {"source": {"http": {"url": self._url()}}}}
        self.api.patch("catalogs", CATALOG, patch)

    # -- faults ------------------------------------------------------------------------------
    def fault(self, kind: str) -> None:
        """One fault. The answers before it must be the answers after it; then (for a replica
        fault always, for a freeze half the time, just before it) a change the controller has
        to answer, so a replica that took over is seen working. The settle time counts from the
        end of the fault (the process resumed, the source back, the replica gone)."""
        self.report.faults += 1
        before = inv.answers(inv.World.read(self.api, set(self.namespaces)))
        change = ""
        if kind.endswith("freeze") and self.rng.random() < 0.5:
            change = self._counted_step()  # made just before the freeze: caught up after it
        if kind == "catalog-outage":
            what = self._outage()
        elif kind in ("apiserver-freeze", "etcd-freeze"):
            what = self._freeze("kube-apiserver" if kind == "apiserver-freeze" else "etcd")
        elif kind == "kill-9":
            what = self.replicas.kill9()
        else:
            what = self.replicas.takeover()
        begin = time.monotonic()
        _, world = self.settle()
        if not change:
            self.report.checked["fault-no-change"] = (
                self.report.checked.get("fault-no-change", 0) + 1
            )
            for problem in inv.changed_answers(before, inv.answers(world)):
                self._violation("fault-no-change", problem)
        if kind in ("kill-9", "takeover"):
            change = self._counted_step()  # the replica now working must answer it
            _, world = self.settle()
        seconds = time.monotonic() - begin - self.profile.quiet_seconds
        self.report.settle.setdefault(kind, []).append(seconds)
        then = f" (with {change})" if change else ""
        self.check(world, f"FAULT {self.report.faults} {kind}: {what}{then}", seconds)

    def _counted_step(self) -> str:
        self.report.steps += 1
        return self.step()

    def _freeze(self, process: str) -> str:
        assert self.kube.run_dir is not None, "a freeze needs the pids of ../shared/k8s"
        pid = int((self.kube.run_dir / f"{process}.pid").read_text().split()[0])
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(self.profile.freeze_seconds)
        finally:
            os.kill(pid, signal.SIGCONT)
        return f"{process} frozen (SIGSTOP) for {self.profile.freeze_seconds:g} s"

    def _outage(self) -> str:
        """The source answers 503 while the Catalog reloads: every answer stays, and a new
        question is answered from the content still served."""
        before = inv.answers(inv.World.read(self.api, set(self.namespaces)))
        self.server.set_up(False)
        self.attempt += 1
        self._point_catalog()
        self._wait(
            "the Catalog to report the failed reload", lambda: self._catalog_ready(False), 60
        )
        namespace = self.rng.choice(self.namespaces)
        package = self.rng.choice(self._packages())
        probe = {
            "apiVersion": API,
            "kind": "ActiveResolution",
            "metadata": {"name": "during-outage", "namespace": namespace},
            "spec": {"sources": [CATALOG], "constraints": [f'required("{package}")']},
        }
        self.api.create("activeresolutions", probe, namespace)
        _, world = self.settle()
        for problem in inv.changed_answers(before, inv.answers(world)):
            self._violation("fault-no-change", f"during the outage: {problem}")
        answer = self.api.get("activeresolutions", "during-outage", namespace) or {}
        resolved = inv.condition(answer, "Resolved") or {}
        if resolved.get("status") != "True":
            self._violation(
                "fault-no-change",
                f"{namespace}/during-outage (required {package}) asked during the outage got "
                f"{resolved.get('reason')}: {resolved.get('message')}",
            )
        time.sleep(self.profile.outage_seconds)
        self.api.delete("activeresolutions", "during-outage", namespace)
        self.server.set_up(True)
        self.attempt += 1
        self._point_catalog()
        self._wait("the Catalog to be Ready again", lambda: self._catalog_ready(True), 60)
        return (
            f"catalog source down for {self.profile.outage_seconds:g} s while the Catalog reloaded"
        )


def print_report(report: Report, out: Callable[[str], None]) -> None:
    out("")
    out("invariants checked after every step and fault:")
    for name, text in inv.INVARIANTS.items():
        out(f"  {name}: {text} — checked {report.checked.get(name, 0)} times")
    for kind in FAULTS:
        times = report.settle.get(kind, [])
        if times:
            out(
                f"settle after {kind} ({len(times)}): median {statistics.median(times):.1f} s, "
                f"max {max(times):.1f} s"
            )
    if report.step_settle:
        out(
            f"settle after a step: median {statistics.median(report.step_settle):.1f} s, "
            f"max {max(report.step_settle):.1f} s"
        )
    out(f"objects at most: {report.max_objects}; controller RSS at most {report.max_rss_mb:.0f} MB")
    for violation in report.violations[:40]:
        out(f"violation: {violation}")
    out(report.summary())


__all__ = ["FULL", "SHORT", "ApiError", "Profile", "Report", "Soak", "print_report"]
