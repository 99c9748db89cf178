"""``deppy manifests``: everything a cluster needs, as YAML for ``kubectl apply -f -``."""

from __future__ import annotations

import click

from deppy.cli.data_output import emit
from deppy.cli.main import cli


@cli.command("manifests")
@click.option(
    "--namespace", default="deppy-system", show_default=True, help="Where the controller runs."
)
@click.option("--image", default="deppy:latest", show_default=True, help="The controller's image.")
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
def manifests_cmd(namespace: str, image: str, replicas: int, only: str) -> None:
    """Print the CRDs, default InputClasses and ProvisionerClass, RBAC and the Deployment."""
    import yaml

    from deppy.controller.install.manifests import all_manifests

    documents = all_manifests(namespace=namespace, image=image, replicas=replicas)
    if only != "all":
        crds = only == "crds"
        documents = [d for d in documents if (d["kind"] == "CustomResourceDefinition") == crds]
    emit(yaml.safe_dump_all(documents, sort_keys=False, width=100), nl=False)
