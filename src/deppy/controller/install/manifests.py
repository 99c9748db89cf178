"""Everything a cluster needs to run deppy, as plain objects for ``kubectl apply -f -``.

The CRDs (``crds``), the seed's five default InputClasses, the default ProvisionerClass
``deppy.resolveset`` (approval: Android), kopf's peering CRDs (two replicas never both write:
the one with the higher priority works, the other waits), a ServiceAccount, a least-privilege
ClusterRole and its binding, a Deployment running ``deppy controller`` (JSON logs; /healthz and
/metrics on its ``metrics`` port; the image's user, a read-only root, no capabilities, the
runtime's seccomp profile, emptyDirs at /tmp and the home) and a Service in front of that port
for Prometheus.

The image is the one the cluster's admin pushed (``--image``): no default, since no image named
``deppy:latest`` exists anywhere a kubelet could pull it from. On OpenShift (``openshift``) the
Deployment names no user or group: the restricted SCC refuses a fixed ``runAsUser`` and runs
the pod as an arbitrary uid in group 0 of the namespace's range, which the image allows (its
home is group 0's and group-writable; the emptyDirs are writable by any uid).
"""

from __future__ import annotations

from typing import Any

from deppy.controller.install.crds import API_VERSION, GROUP, all_crds

DEFAULT_NAMESPACE = "deppy-system"
SERVICE_ACCOUNT = "deppy-controller"
PROVISIONER = "deppy.io/resolver"
RESOLVESET_CLASS = "deppy.resolveset"
OLM_V1_CLASS = "olm-v1"
OLM_V1_PROVISIONER = "deppy.io/olm-v1"  # olmv1.extensions.PROVISIONER (install imports nothing)
HEALTH_PORT = 8080
# The image's user and home (image/base.py; `make image`): the Deployment runs it as that user
IMAGE_USER = 65532
IMAGE_HOME = "/home/deppy"
PEERING_NAME = "deppy"

# The seed's defaults; minimal-version has its own switch (the seed's copy says force: true,
# which would bypass the solver it relies on).
_CLUSTER_NOW = [
    {"type": "minKubeVersion", "value": ">= 1.20"},
    {"type": "minOCPVersion", "value": ">= 4.7"},
]
DEFAULT_INPUT_CLASSES: dict[str, dict[str, Any]] = {
    "subscription": {"generateInputsForDependencies": True},
    "force": {"force": True},
    "minimal-version": {"minimalVersion": True},
    "dry-run": {"dryRun": True},
    "dry-run-next": {"dryRun": True, "nextClusterVersion": True},
}


def input_classes() -> list[dict[str, Any]]:
    return [input_class(name, **switches) for name, switches in DEFAULT_INPUT_CLASSES.items()]


def input_class(name: str, **switches: Any) -> dict[str, Any]:
    """An InputClass: every switch off unless ``switches`` turns it on, today's cluster's
    constraints."""
    parameters: dict[str, Any] = {
        "force": False,
        "minimalVersion": False,
        "generateInputsForDependencies": False,
        "dryRun": False,
        "nextClusterVersion": False,
        "trace": False,
        **switches,
        "constraints": _CLUSTER_NOW,
    }
    return {
        "apiVersion": API_VERSION,
        "kind": "InputClass",
        "metadata": {"name": name},
        "parameters": parameters,
    }


def provisioner_class() -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "ProvisionerClass",
        "metadata": {"name": RESOLVESET_CLASS},
        "provisioner": PROVISIONER,
        "parameters": {"approval": "Android"},
    }


def olm_v1_classes() -> list[dict[str, Any]]:
    """The ProvisionerClass ``olm-v1`` (approved sets become OLM v1 ClusterExtensions; a
    package leaving the set is reported, not uninstalled: ``prune: false``) and the InputClass
    ``olm-v1`` that hands its Inputs' sets to it. The service account operator-controller
    installs with is the cluster's to choose: set it on the Input or on a copy of the class."""
    return [
        {
            "apiVersion": API_VERSION,
            "kind": "ProvisionerClass",
            "metadata": {"name": OLM_V1_CLASS},
            "provisioner": OLM_V1_PROVISIONER,
            "parameters": {"approval": "Android", "prune": False},
        },
        input_class(OLM_V1_CLASS, provisionerClass=OLM_V1_CLASS),
    ]


def peering_crds() -> list[dict[str, Any]]:
    """kopf's peering kinds (kopf.dev): where replicas see each other."""

    def one(kind: str, plural: str, scope: str) -> dict[str, Any]:
        return {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.kopf.dev"},
            "spec": {
                "group": "kopf.dev",
                "scope": scope,
                "names": {"kind": kind, "plural": plural, "singular": kind.lower()},
                "versions": [
                    {
                        "name": "v1",
                        "served": True,
                        "storage": True,
                        "schema": {
                            "openAPIV3Schema": {
                                "type": "object",
                                "properties": {
                                    "status": {
                                        "type": "object",
                                        "x-kubernetes-preserve-unknown-fields": True,
                                    }
                                },
                            }
                        },
                    }
                ],
            },
        }

    return [
        one("ClusterKopfPeering", "clusterkopfpeerings", "Cluster"),
        one("KopfPeering", "kopfpeerings", "Namespaced"),
    ]


def peering_object() -> dict[str, Any]:
    return {
        "apiVersion": "kopf.dev/v1",
        "kind": "ClusterKopfPeering",
        "metadata": {"name": PEERING_NAME},
    }


def cluster_role() -> dict[str, Any]:
    """Only what the controller does: read its kinds and write their status; create and delete
    what it owns (Inputs, Bundles, Instances, resolveset ConfigMaps); read CSVs and ConfigMaps;
    post Events; keep its peering record."""
    read = ["get", "list", "watch"]
    annotate = [*read, "patch"]  # kopf keeps its progress in annotations
    owned = [*read, "create", "patch", "delete"]
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "deppy-controller"},
        "rules": [
            {
                "apiGroups": [GROUP],
                "resources": [
                    "catalogs",
                    "activeresolutions",
                    "inputclasses",
                    "operators",
                    "provisionerclasses",
                ],
                "verbs": annotate,
            },
            {"apiGroups": [GROUP], "resources": ["inputs", "bundles", "instances"], "verbs": owned},
            {
                "apiGroups": [GROUP],
                "resources": [
                    "catalogs/status",
                    "activeresolutions/status",
                    "inputs/status",
                    "operators/status",
                    "bundles/status",
                    "instances/status",
                ],
                "verbs": ["get", "patch", "update"],
            },
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": owned},
            {"apiGroups": [""], "resources": ["namespaces"], "verbs": read},
            # get: a recurring Event is read to add one to its count
            {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "get", "patch"]},
            {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]},
            {
                "apiGroups": ["kopf.dev"],
                "resources": ["clusterkopfpeerings", "kopfpeerings"],
                "verbs": [*read, "patch"],
            },
            {
                "apiGroups": ["operators.coreos.com"],
                "resources": ["clusterserviceversions", "subscriptions"],
                "verbs": read,
            },
            # kopf notices a kind whose CRD is installed after it started (OLM v1 installed
            # after deppy): it watches the definitions
            {
                "apiGroups": ["apiextensions.k8s.io"],
                "resources": ["customresourcedefinitions"],
                "verbs": read,
            },
            # OLM v1: ClusterCatalogs read, and deppy's resolved catalogs written; ClusterExtensions
            # written only when labelled deppy's (the controller checks the label: RBAC cannot)
            {
                "apiGroups": ["olm.operatorframework.io"],
                "resources": ["clustercatalogs"],
                "verbs": owned,
            },
            {
                "apiGroups": ["olm.operatorframework.io"],
                "resources": ["clusterextensions"],
                "verbs": owned,
            },
            {
                "apiGroups": ["config.openshift.io"],
                "resources": ["clusterversions"],
                "verbs": ["get"],
            },
        ],
    }


def secrets_role(namespace: str) -> list[dict[str, Any]]:
    """Registry credentials (a ProvisionerClass's ``authSecret``, an image Catalog's
    ``pullSecret``): read in deppy's own namespace only, never cluster-wide (a Role with
    ``resourceNames`` cannot name Secrets a user creates later)."""
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "deppy-controller-secrets", "namespace": namespace},
            "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "deppy-controller-secrets", "namespace": namespace},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "Role",
                "name": "deppy-controller-secrets",
            },
            "subjects": [
                {"kind": "ServiceAccount", "name": SERVICE_ACCOUNT, "namespace": namespace}
            ],
        },
    ]


LABELS = {"app.kubernetes.io/name": "deppy-controller"}
METRICS_PORT_NAME = "metrics"


def deployment(
    namespace: str, image: str, replicas: int, *, openshift: bool = False
) -> dict[str, Any]:
    """The controller's Deployment; ``openshift``: no fixed user or group (the SCC picks)."""
    labels = LABELS
    security: dict[str, Any] = {"runAsNonRoot": True}
    if not openshift:
        security |= {"runAsUser": IMAGE_USER, "runAsGroup": IMAGE_USER}
    security |= {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "deppy-controller", "namespace": namespace, "labels": labels},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": SERVICE_ACCOUNT,
                    "containers": [
                        {
                            "name": "controller",
                            "image": image,
                            # the kubelet and Prometheus reach the pod's address, not loopback
                            "args": [
                                "controller",
                                "--health-host=0.0.0.0",
                                f"--health-port={HEALTH_PORT}",
                                "--log-format=json",
                            ],
                            "env": [
                                {
                                    "name": "POD_NAME",
                                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}},
                                },
                                # registry Secrets of resolved catalogs are read here only
                                {
                                    "name": "POD_NAMESPACE",
                                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
                                },
                            ],
                            "ports": [{"name": METRICS_PORT_NAME, "containerPort": HEALTH_PORT}],
                            "livenessProbe": {
                                "httpGet": {"path": "/healthz", "port": METRICS_PORT_NAME},
                                "initialDelaySeconds": 30,
                                "periodSeconds": 20,
                            },
                            "resources": {
                                "requests": {"cpu": "100m", "memory": "256Mi"},
                                "limits": {"memory": "512Mi"},
                            },
                            "securityContext": security,
                            # the only places it writes: temporary files, and the parsed-catalog
                            # cache and store under its home (a read-only root elsewhere)
                            "volumeMounts": [
                                {"name": "tmp", "mountPath": "/tmp"},
                                {"name": "home", "mountPath": IMAGE_HOME},
                            ],
                        }
                    ],
                    "volumes": [
                        {"name": "tmp", "emptyDir": {}},
                        {"name": "home", "emptyDir": {}},
                    ],
                },
            },
        },
    }


def metrics_service(namespace: str) -> dict[str, Any]:
    """What a scraper targets: a ServiceMonitor selects it by label and port name; the
    ``prometheus.io`` annotations serve the annotation-based scrape configurations."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "deppy-controller-metrics",
            "namespace": namespace,
            "labels": dict(LABELS),
            "annotations": {
                "prometheus.io/scrape": "true",
                "prometheus.io/port": str(HEALTH_PORT),
                "prometheus.io/path": "/metrics",
            },
        },
        "spec": {
            "selector": dict(LABELS),
            "ports": [
                {"name": METRICS_PORT_NAME, "port": HEALTH_PORT, "targetPort": METRICS_PORT_NAME}
            ],
        },
    }


def all_manifests(
    *, image: str, namespace: str = DEFAULT_NAMESPACE, replicas: int = 2, openshift: bool = False
) -> list[dict[str, Any]]:
    """In apply order: definitions first, then the objects that need them."""
    return [*definitions(), *objects(image=image, namespace=namespace, replicas=replicas,
                                      openshift=openshift)]  # fmt: skip


def definitions() -> list[dict[str, Any]]:
    """deppy's CRDs and kopf's peering CRDs: applied, and established, before the objects."""
    return [*all_crds(), *peering_crds()]


def objects(
    *, image: str, namespace: str = DEFAULT_NAMESPACE, replicas: int = 2, openshift: bool = False
) -> list[dict[str, Any]]:
    """Everything but the definitions, in apply order."""
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": SERVICE_ACCOUNT, "namespace": namespace},
        },
        cluster_role(),
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "deppy-controller"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "deppy-controller",
            },
            "subjects": [
                {"kind": "ServiceAccount", "name": SERVICE_ACCOUNT, "namespace": namespace}
            ],
        },
        *secrets_role(namespace),
        *input_classes(),
        provisioner_class(),
        *olm_v1_classes(),
        peering_object(),
        deployment(namespace, image, replicas, openshift=openshift),
        metrics_service(namespace),
    ]
