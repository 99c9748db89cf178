"""``deppy catalog diff OLD NEW``: what changed between two releases of a catalog.

A plain command that ``catalog_command`` attaches to the ``catalog`` group (as ``check``).
Exit 0 whether or not the catalogs differ — a release check reads the counts or the JSON —
unless ``--exit-code`` asks for ``git diff``'s convention: 1 when they differ. 2 is bad input.
"""

from __future__ import annotations

import click

from deppy.cli.data_output import SETTINGS, dump, say
from deppy.cli.exit_codes import EXIT_OK, EXIT_UNRESOLVABLE
from deppy.cli.workflow_options import output_option, quiet_option, registry_options, to_stderr
from deppy.workflows.catalog_diff import diff_facts, load_side


@click.command("diff")
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@output_option("text", "json", "yaml")
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when the catalogs differ (as git diff --exit-code); default: 0 either way.",
)
@quiet_option
@registry_options
def catalog_diff(old: str, new: str, output: str, exit_code: bool) -> None:
    """What changed from catalog OLD to catalog NEW: packages, bundles and channels added and
    removed, channel heads moved, default channels, deprecations, upgrade edges (replaces,
    skips, skipRange) and platform limits (maxOpenShiftVersion, minKubeVersion).

    OLD and NEW are stored catalogs (deppy catalog add) or catalog paths. Exit 0 whether or
    not they differ (1 when they differ with --exit-code), 2 on bad input.
    """
    report = None if SETTINGS.quiet else to_stderr
    before = load_side(old, report=report)
    after = before if new == old else load_side(new, report=report)
    diff = diff_facts(before, after)
    if output == "text":
        from deppy.workflows.catalog_diff import diff_lines

        say("\n".join(diff_lines(diff)))
    else:
        dump(diff.as_dict(), output)
    raise SystemExit(EXIT_UNRESOLVABLE if exit_code and not diff.empty else EXIT_OK)
