"""A person's approval of a resolveset Instance: ``Approved`` True, written with the same
resourceVersion-guarded status patch the controller uses (a concurrent write is never lost),
and an ``Approved`` Event on it naming who approved. A superseded proposal is refused, naming the
Instance to approve instead."""

from __future__ import annotations

import getpass

from deppy.controller.approval.proposals import SUPERSEDED
from deppy.controller.conditions import condition, set_condition
from deppy.controller.events import Recorder
from deppy.controller.kube import ApiError, Body, Kube
from deppy.controller.runner import api_client
from deppy.errors import InputError


def approver() -> str:
    """Who approves: the login name, or ``uid N`` for a uid with no account (an image run as an
    arbitrary uid, as OpenShift runs it, has no passwd entry: getuser raised KeyError)."""
    import os

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}"


def approve_instance(kubeconfig: str | None, namespace: str, name: str, message: str) -> str:
    where = f"Instance {namespace}/{name}"
    kube = Kube(api_client(kubeconfig))  # a kubeconfig that cannot be used: one line
    who = approver()
    text = f"{message} (by {who})"

    def compute(current: Body) -> Body:
        found = condition(current, SUPERSEDED)
        if found is not None and found.get("status") == "True":
            raise InputError(where, str(found.get("message") or "superseded"))
        old = (current.get("status") or {}).get("conditions")
        return {"conditions": set_condition(old, "Approved", True, "ApprovedByUser", text)}

    try:
        done = kube.update_status("instances", name, namespace, compute)
    except ApiError as error:
        raise InputError(where, f"cannot approve: {error}") from None
    except OSError as error:
        raise InputError(
            where,
            f"cannot reach the API server: {error}",
            "check --kubeconfig (or $KUBECONFIG) and that the API server is up",
        ) from None
    if done is None:
        raise InputError(
            where, "no such Instance", f"list them: kubectl get instances -n {namespace}"
        )
    # the one who acts tells: kubectl describe shows who approved, beside the proposal
    Recorder(kube, instance=who).post(done, "Approved", f"ApprovedByUser: {text}")
    return f"{where} approved"
