"""deppy's CustomResourceDefinitions (group ``deppy.io``, version ``v1alpha1``) as plain data.

Structural schemas, validated by the API server with what Kubernetes 1.20 has: OpenAPI types,
enums, patterns, ``required``, ``minItems`` and ``oneOf`` over ``required`` (exactly one catalog
source). CEL rules (``x-kubernetes-validations``) need 1.25, so what OpenAPI cannot say — a
version range that parses, a constraint of the right shape for its type, an ``olm.cel`` rule that
compiles — is checked by the controller and reported as a status condition naming the field.
Every kind has the status subresource, so spec and status are written apart.
"""

from __future__ import annotations

from typing import Any

GROUP = "deppy.io"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"

Schema = dict[str, Any]

MAX_INPUT_CONSTRAINTS = 64
"""Constraints one Input may have: each ``olm.cel`` rule is evaluated on every bundle of every
package the Input asks for, so their number bounds what an Input costs (500 rules took 9 s).
``maxItems`` here; ``requests.input_requirements`` checks again for clusters without the
schema."""


def string(description: str = "", **more: Any) -> Schema:
    return {"type": "string", **({"description": description} if description else {}), **more}


def integer(description: str = "", **more: Any) -> Schema:
    return {"type": "integer", **({"description": description} if description else {}), **more}


def boolean(description: str = "") -> Schema:
    return {"type": "boolean", **({"description": description} if description else {})}


def obj(properties: dict[str, Schema], required: list[str] | None = None, **more: Any) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema.update(more)
    return schema


def array(items: Schema, description: str = "", **more: Any) -> Schema:
    schema: Schema = {"type": "array", "items": items, **more}
    if description:
        schema["description"] = description
    return schema


ANY: Schema = {"x-kubernetes-preserve-unknown-fields": True}
ANY_OBJECT: Schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
NAME = string(pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", maxLength=253)

CONDITION = obj(
    {
        "type": string(),
        "status": string(enum=["True", "False", "Unknown"]),
        "reason": string(),
        "message": string(),
        "observedGeneration": integer(),
        "lastTransitionTime": string(format="date-time"),
        "lastUpdateTime": string(format="date-time"),
    },
    required=["type", "status"],
)
CONDITIONS = array(
    CONDITION,
    "Conditions, one per type.",
    **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
)
REF = obj(
    {
        "apiVersion": string(),
        "kind": string(),
        "name": string(),
        "namespace": string(),
        "conditions": CONDITIONS,
    }
)
CATALOG_REF = obj(
    {
        "name": string("The Catalog's name."),
        "namespace": string("Ignored: Catalogs are cluster-scoped (kept for the seed's shape)."),
        "package": string("The package."),
        "channel": string("The channel (default: the package's default channel)."),
    },
    required=["package"],
)
INPUT_CONSTRAINT = obj(
    {
        "type": string(
            "What kind of constraint value is.",
            enum=["olm.catalog", "olm.packageVersion", "olm.name", "olm.cel"],
        ),
        "value": {
            **ANY,
            "description": "olm.catalog {name, package, channel}; olm.packageVersion {package, "
            "version}; olm.name: a bundle name; olm.cel: a CEL rule over `properties`.",
        },
    },
    required=["type", "value"],
)
EXPLANATION = obj(
    {
        "text": string("Why no answer exists, and what would make one exist."),
        "structured": {**ANY_OBJECT, "description": "The same explanation as `-o json` has it."},
    }
)


def printer(name: str, path: str, kind: str = "string", **more: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "jsonPath": path, **more}


AGE = printer("Age", ".metadata.creationTimestamp", "date")


def condition_column(name: str, kind: str, field: str = "status") -> dict[str, Any]:
    return printer(name, f'.status.conditions[?(@.type=="{kind}")].{field}')


def crd(
    kind: str,
    plural: str,
    scope: str,
    properties: dict[str, Schema],
    columns: list[dict[str, Any]],
    *,
    short: list[str] | None = None,
    required: list[str] | None = None,
) -> dict[str, Any]:
    schema = obj(
        {
            "apiVersion": string(),
            "kind": string(),
            "metadata": {"type": "object"},
            **properties,
        },
        required=required,
    )
    names: dict[str, Any] = {
        "kind": kind,
        "listKind": f"{kind}List",
        "plural": plural,
        "singular": kind.lower(),
        "categories": ["deppy"],
    }
    if short:
        names["shortNames"] = short
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": scope,
            "names": names,
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": [*columns, AGE],
                }
            ],
        },
    }


def catalog_crd() -> dict[str, Any]:
    poll = string(
        "How often to load it again: 30s, 10m, 1h (default 10m).",
        pattern=r"^([0-9]+(\.[0-9]+)?(s|m|h))+$",
    )
    http = obj(
        {
            "url": string(
                "A File-Based Catalog JSON stream, as catalogd serves …/api/v1/all.",
                pattern="^https?://",
            ),
            "pollInterval": poll,
        },
        required=["url"],
    )
    image = obj(
        {
            "ref": string(
                "A catalog image, as catalogd takes it (quay.io/org/catalog:v4.18, "
                "…@sha256:DIGEST) or docker://HOST/REPO:TAG."
            ),
            "pollInterval": string(
                "How often to ask for the tag's digest (default 10m); loaded when it moves.",
                pattern=poll["pattern"],
            ),
            "tlsVerify": boolean(
                "Check the registry's certificate (default true); false also allows plain HTTP."
            ),
            "pullSecret": obj(
                {
                    "namespace": string(
                        "deppy's own namespace (the default): deppy reads Secrets nowhere else."
                    ),
                    "name": string("A kubernetes.io/dockerconfigjson Secret."),
                },
                required=["name"],
            ),
        },
        required=["ref"],
    )
    config_map = obj(
        {
            "namespace": string("Where the ConfigMaps are."),
            "names": array(
                string(), "ConfigMaps whose keys are FBC files (.gz in binaryData).", minItems=1
            ),
        },
        required=["namespace", "names"],
    )
    path = obj(
        {"path": string("A directory mounted into the controller's pod.")}, required=["path"]
    )
    source = obj(
        {"http": http, "configMap": config_map, "path": path, "image": image},
        oneOf=[{"required": [k]} for k in ("http", "configMap", "path", "image")],
        description="Exactly one of http, configMap, path, image.",
    )
    spec = obj(
        {"priority": integer("Higher is preferred (default 0)."), "source": source},
        required=["source"],
    )
    status = obj(
        {
            "observedGeneration": integer(),
            "conditions": CONDITIONS,
            "packages": integer(),
            "bundles": integer(),
            "problems": integer("Objects skipped as invalid."),
            "firstProblems": array(string()),
            "digest": string("sha256 of the content (an image's: its manifest digest)."),
            "resolvedSource": obj(
                {"type": string(), "image": obj({"ref": string("The image served, by digest.")})},
                description="An image's digest served, as catalogd writes it.",
            ),
            "lastLoadTime": string(format="date-time"),
            "lastAttemptTime": string(format="date-time"),
        }
    )
    return crd(
        "Catalog",
        "catalogs",
        "Cluster",
        {"spec": spec, "status": status},
        [
            printer("Priority", ".spec.priority", "integer"),
            condition_column("Ready", "Ready"),
            printer("Packages", ".status.packages", "integer"),
            printer("Bundles", ".status.bundles", "integer"),
        ],
        required=["spec"],
    )


def active_resolution_crd() -> dict[str, Any]:
    spec = obj(
        {
            "sources": array(string(), "Only these Catalogs (default: all)."),
            "cluster": obj(
                {
                    "openshiftVersion": string("Default: what the cluster runs."),
                    "kubernetesVersion": string("Default: what the cluster runs."),
                }
            ),
            "exclude": array(
                obj({"type": string(), "value": string()}, required=["type", "value"])
            ),
            "constraints": array(
                {
                    **ANY,
                    "description": 'required("name", "range", "channel"), installed(...), or '
                    "{required: {name, versionRange, channel, catalog}} / {installed: {...}}.",
                },
            ),
            "timeoutSeconds": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        }
    )
    status = obj(
        {
            "observedGeneration": integer(),
            "conditions": CONDITIONS,
            "selection": array(string(), "catalog:package:version:channel, install order."),
            "bundles": array(ANY_OBJECT, "The selection as `deppy resolve -o json` has it."),
            "explanation": EXPLANATION,
            "warnings": array(string()),
            "catalogs": array(obj({"name": string(), "digest": string()})),
            "resolvedAt": string(format="date-time"),
        }
    )
    return crd(
        "ActiveResolution",
        "activeresolutions",
        "Namespaced",
        {"spec": spec, "status": status},
        [
            condition_column("Resolved", "Resolved"),
            condition_column("Reason", "Resolved", "reason"),
            printer("Selection", ".status.selection", priority=1),
        ],
        short=["ar"],
    )


def input_class_crd() -> dict[str, Any]:
    parameters = obj(
        {
            "force": boolean("Every matching entry goes into the set, without the solver."),
            "minimalVersion": boolean(
                "Dependencies stay at the lowest version their dependents accept."
            ),
            "generateInputsForDependencies": boolean("An Input per dependency brought in."),
            "dryRun": boolean("A resolveset Bundle, but no Instance."),
            "nextClusterVersion": boolean(
                "Resolve against the next minor Kubernetes/OpenShift (dry-run-next)."
            ),
            "trace": boolean("The resolveset carries the resolution trace."),
            "rules": string(
                "Whose rules answer: deppy (default) or olm-v0 (OLM v0's resolver).",
                enum=["deppy", "olm-v0"],
            ),
            "provisionerClass": string("For the resolveset (default deppy.resolveset)."),
            "installNamespace": string(
                "OLM v1 (provisioner deppy.io/olm-v1): the namespace operators are installed "
                "into (default: the Input's)."
            ),
            "serviceAccount": string(
                "OLM v1: the service account operator-controller installs with."
            ),
            "constraints": array(
                obj(
                    {
                        "type": string(enum=["minKubeVersion", "minOCPVersion"]),
                        "value": string("A lower bound, e.g. '>= 1.20'."),
                    },
                    required=["type", "value"],
                )
            ),
        }
    )
    return crd(
        "InputClass",
        "inputclasses",
        "Cluster",
        {"parameters": parameters, "status": obj({"conditions": CONDITIONS})},
        [
            printer("Force", ".parameters.force", "boolean"),
            printer("DryRun", ".parameters.dryRun", "boolean"),
        ],
    )


def input_crd() -> dict[str, Any]:
    spec = obj(
        {
            "inputClass": string("Default: subscription."),
            "constraints": array(INPUT_CONSTRAINT, minItems=1, maxItems=MAX_INPUT_CONSTRAINTS),
            "installNamespace": string(
                "OLM v1: the namespace its packages are installed into (default: the "
                "InputClass's, else the Input's own)."
            ),
            "serviceAccount": string(
                "OLM v1: the service account operator-controller installs them with (default: "
                "the InputClass's)."
            ),
        },
        required=["constraints"],
    )
    instance = obj(
        {
            "name": string(),
            "package": string(),
            "version": string(),
            "catalog": string(),
            "channel": string(),
            "satisfies": array(obj({"name": string(), "meets": array(string())})),
            "dependencies": array(obj({"name": string(), "meets": array(string())})),
            "conditions": CONDITIONS,
        }
    )
    status = obj(
        {
            "observedGeneration": integer(),
            "conditions": CONDITIONS,
            "instances": array(instance),
            "explanation": EXPLANATION,
            "resolveset": REF,
            "resolvedAt": string(format="date-time"),
        }
    )
    return crd(
        "Input",
        "inputs",
        "Namespaced",
        {"spec": spec, "status": status},
        [
            printer("Class", ".spec.inputClass"),
            condition_column("Resolved", "Resolved"),
            condition_column("Failed", "ResolutionFailed"),
        ],
        required=["spec"],
    )


def operator_crd() -> dict[str, Any]:
    spec = obj(
        {
            "inputClass": string("Default: subscription."),
            "catalog": CATALOG_REF,
            "version": string("Exact, or a range such as '>2.0.0 <3.0.0'."),
            # catalog and version become two more constraints of the Input
            "constraints": array(INPUT_CONSTRAINT, maxItems=MAX_INPUT_CONSTRAINTS - 2),
        },
        required=["catalog"],
    )
    update = obj(
        {
            "options": array(string(), "Bundles, newest first."),
            "catalog": CATALOG_REF,
        }
    )
    status = obj(
        {
            "observedGeneration": integer(),
            "conditions": CONDITIONS,
            "installed": string(),
            "updates": array(update),
            "components": obj(
                {
                    "matchLabels": {"type": "object", "additionalProperties": string()},
                    "refs": array(REF),
                }
            ),
        }
    )
    return crd(
        "Operator",
        "operators",
        "Namespaced",
        {"spec": spec, "status": status},
        [
            printer("Package", ".spec.catalog.package"),
            printer("Installed", ".status.installed"),
            condition_column("Update", "UpdateAvailable"),
            condition_column("Why", "UpdateAvailable", "reason"),
        ],
        required=["spec"],
    )


def bundle_crd() -> dict[str, Any]:
    spec = obj(
        {
            "class": string("The ProvisionerClass."),
            "refs": array(string()),
            "volumeMounts": array(
                obj(
                    {
                        "mountPath": string(),
                        "configMap": obj({"name": string(), "namespace": string()}),
                    }
                )
            ),
        },
        required=["class"],
    )
    status = obj(
        {
            "unpacked": string(enum=["NotStarted", "InProgress", "Done"]),
            "objects": array(string()),
            "conditions": CONDITIONS,
        }
    )
    return crd(
        "Bundle",
        "bundles",
        "Namespaced",
        {"spec": spec, "status": status},
        [printer("Class", ".spec.class"), printer("Unpacked", ".status.unpacked")],
        required=["spec"],
    )


def instance_crd() -> dict[str, Any]:
    spec = obj(
        {
            "selector": obj({"matchLabels": {"type": "object", "additionalProperties": string()}}),
            "bundle": obj({"name": string(), "spec": ANY_OBJECT}, required=["name"]),
        },
        required=["bundle"],
    )
    extension = obj(
        {
            "name": string("The ClusterExtension."),
            "package": string(),
            "version": string("Approved (empty: no longer in the set)."),
            "installedVersion": string("What OLM v1 installed (status.install.bundle)."),
            "inSet": boolean("False: left over from an earlier set (prune: false)."),
            "installed": string("OLM v1's Installed condition: True, False, Unknown."),
            "progressing": string("OLM v1's Progressing reason: Succeeded, Retrying, Blocked."),
            "message": string(),
        }
    )
    status = obj(
        {
            "conditions": CONDITIONS,
            "clusterExtensions": array(
                extension, "OLM v1 provisioner: the ClusterExtensions written for this set."
            ),
        }
    )
    return crd(
        "Instance",
        "instances",
        "Namespaced",
        {"spec": spec, "status": status},
        [
            printer("Bundle", ".spec.bundle.name"),
            condition_column("Approved", "Approved"),
            condition_column("Reason", "Approved", "reason"),
            condition_column("Applied", "Applied"),
            condition_column("Installed", "Installed"),
            condition_column("Progressing", "Progressing", "reason"),
        ],
        required=["spec"],
    )


def provisioner_class_crd() -> dict[str, Any]:
    parameters = obj(
        {
            "approval": string(
                "Who approves Instances (default Android).",
                enum=["AllowAll", "DenyAll", "Android"],
            ),
            "prune": boolean(
                "OLM v1: delete the ClusterExtension of a package that left the approved set "
                "(deleting one uninstalls the operator; default false)."
            ),
        },
    )
    parameters["x-kubernetes-preserve-unknown-fields"] = True
    return crd(
        "ProvisionerClass",
        "provisionerclasses",
        "Cluster",
        {"provisioner": string("The provisioner's unique id."), "parameters": parameters},
        [printer("Provisioner", ".provisioner"), printer("Approval", ".parameters.approval")],
        required=["provisioner"],
    )


def all_crds() -> list[dict[str, Any]]:
    return [
        catalog_crd(),
        active_resolution_crd(),
        input_class_crd(),
        input_crd(),
        operator_crd(),
        bundle_crd(),
        instance_crd(),
        provisioner_class_crd(),
    ]
