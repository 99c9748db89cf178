"""A kubeconfig read into the kubernetes client's configuration, or one line saying why not.

Every command that talks to a cluster starts here (``resolve --kubeconfig``, ``cluster
export``, ``controller``, ``approve``), so a kubeconfig that is missing, empty, not YAML, not
UTF-8 or not shaped like a kubeconfig is the same ``deppy: error:`` line and exit 2 from each,
never the client's traceback (issue 26, group 15). The client's loader reports a bad file with
whatever its parsing met (its own ConfigException, PyYAML's errors, or a TypeError or
AttributeError from a list where it expected a mapping): all of them mean the file cannot be
used.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from deppy.errors import InputError, excerpt

if TYPE_CHECKING:
    from kubernetes.client import Configuration

ADVICE = "give --kubeconfig FILE (and --context NAME) of a cluster you can reach"


def kube_configuration(kubeconfig: str | None, context: str | None = None) -> Configuration:
    """The client configuration of ``kubeconfig`` (None: ``$KUBECONFIG``, else
    ``~/.kube/config``) at ``context`` (None: its current context)."""
    import yaml
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    where = f"kubeconfig {kubeconfig}" if kubeconfig else "the default kubeconfig"
    if context:
        where += f" (context {excerpt(context)})"
    if kubeconfig and not os.path.lexists(kubeconfig):
        raise InputError(where, "does not exist", ADVICE)
    for path in _files_read(kubeconfig):
        _within_limits(path, where)
    configuration = client.Configuration()
    try:
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, client_configuration=configuration
        )
    except ConfigException as error:
        raise InputError(where, f"cannot be used: {' '.join(str(error).split())}", ADVICE) from None
    except OSError as error:
        raise InputError(where, f"cannot be read: {error.strerror or error}") from None
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, yaml.YAMLError):
        raise InputError(
            where, "is not a kubeconfig (a mapping of clusters, contexts and users)", ADVICE
        ) from None
    return configuration


def _files_read(kubeconfig: str | None) -> list[str]:
    """The files the client reads: the one given, else each of ``$KUBECONFIG``'s, else
    ``~/.kube/config`` — those that exist (the client says when none does)."""
    if kubeconfig:
        return [kubeconfig]
    listed = os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
    return [p for p in listed.split(os.pathsep) if p and os.path.exists(p)]


def _within_limits(path: str, where: str) -> None:
    """Read the file through deppy's own guard first: the client's pure-Python YAML loader
    would recurse to a RecursionError on a deeply nested file and expand aliases without a
    bound; deppy's loader refuses both (and says on which line YAML is broken)."""
    import yaml

    from deppy.input_limits import UnsafeInput, read_input, yaml_problem, yaml_value

    try:
        yaml_value(read_input(path))
    except UnsafeInput as error:
        raise InputError(where, str(error), "deppy refuses such input") from None
    except yaml.YAMLError as error:
        raise InputError(where, yaml_problem(error), ADVICE) from None
