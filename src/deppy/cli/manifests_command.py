"""``deppy manifests``: everything a cluster needs, as YAML for ``kubectl apply -f -``.

The definitions (``--only crds``) need nothing; the objects run the image the admin pushed, so
``--image`` is required for them and checked as a kubelet would read it, and ``--namespace`` as
a namespace's name, before a line is printed: a bad one failed only when the pod started.
"""

from __future__ import annotations

import click

from deppy.cli.data_output import emit
from deppy.cli.main import cli

IMAGE_HELP = (
    "The controller's image as pushed to a registry the cluster pulls from, best by digest: "
    "REGISTRY/deppy@sha256:DIGEST (make image; skopeo copy; see docs/controller/install.md). "
    "Required but with --only crds."
)


@cli.command("manifests")
@click.option(
    "--namespace", default="deppy-system", show_default=True, help="Where the controller runs."
)
@click.option("--image", default=None, help=IMAGE_HELP)
@click.option(
    "--replicas",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Controller replicas in the Deployment (one works, the others stand by).",
)
@click.option(
    "--only",
    type=click.Choice(["all", "crds", "objects"]),
    default="all",
    show_default=True,
    help="crds: the definitions alone (apply them first, wait until established); "
    "objects: everything else.",
)
@click.option(
    "--openshift",
    is_flag=True,
    help="A Deployment for OpenShift's restricted SCC: no fixed user or group, the SCC picks "
    "a uid (the image works as any uid in group 0).",
)
def manifests_cmd(
    namespace: str, image: str | None, replicas: int, only: str, openshift: bool
) -> None:
    """Print the CRDs, default InputClasses and ProvisionerClass, RBAC and the Deployment."""
    from deppy.controller.install.manifests import definitions, objects
    from deppy.errors import InputError
    from deppy.input_limits.yaml_writer import plain_yaml_documents
    from deppy.oci.pod_reference import dns_label, image_reference

    dns_label(namespace, "--namespace")
    if image is not None:
        image_reference(image)
    elif only != "crds":
        raise InputError(
            "--image",
            "not given: the Deployment runs the image you pushed",
            "give its reference, REGISTRY/deppy@sha256:DIGEST (make image, skopeo copy, "
            "skopeo inspect: docs/controller/install.md), or print only the definitions "
            "with --only crds",
        )
    documents = definitions() if only != "objects" else []
    if image is not None and only != "crds":
        documents += objects(
            image=image, namespace=namespace, replicas=replicas, openshift=openshift
        )
    emit(plain_yaml_documents(documents), nl=False)
