"""``deppy approve NAME -n NS``: approve a resolveset Instance (condition Approved=True)."""

from __future__ import annotations

import click

from deppy.cli.data_output import say
from deppy.cli.main import cli


@cli.command("approve")
@click.argument("name")
@click.option("-n", "--namespace", required=True, help="The Instance's namespace.")
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Default: $KUBECONFIG.")
@click.option(
    "--message",
    default="approved with deppy approve",
    show_default=True,
    help="The message of the Instance's Approved condition (your user name is added).",
)
def approve_cmd(name: str, namespace: str, kubeconfig: str | None, message: str) -> None:
    """Approve the Instance NAME: a person's decision, which the controller never overwrites."""
    from deppy.controller.approval_command import approve_instance

    say(approve_instance(kubeconfig, namespace, name, message))
