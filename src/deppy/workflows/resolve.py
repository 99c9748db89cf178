"""One resolution as a front door asks for it: another pipeline file, a trace file, a deadline.

The CLI (``deppy resolve``), the service and the controller ask the same question here, so a
``--pipeline``/``--trace`` option means the same everywhere.
"""

from __future__ import annotations

import time
from pathlib import Path

from deppy.catalog.catalog_set import BundleSource
from deppy.pipeline.engine import Pipeline
from deppy.pipeline.trace import trace_file
from deppy.resolution.answer import Resolution
from deppy.resolution.node_library import DOMAIN, load_pipeline
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.resolver import resolve_in_pipeline
from deppy.solver import SolveTimeout
from deppy.workflows.did_you_mean import with_names_suggested


def resolve_with_options(
    catalogs: BundleSource,
    request: ResolutionRequest,
    *,
    timeout: float | None,
    pipeline: Pipeline | None,
    trace: Path | None,
) -> Resolution:
    """Resolve with ``pipeline`` (default: the shipped one), recording to ``trace`` if given;
    an unresolvable answer also offers the packages a name no catalog has probably meant
    (``did_you_mean``), each seen to resolve with the same pipeline, unrecorded."""
    deadline = None if timeout is None else time.monotonic() + timeout
    if trace is None:
        resolution = resolve_in_pipeline(catalogs, request, timeout=timeout, pipeline=pipeline)
    else:
        with trace_file(trace, DOMAIN) as writer:
            resolution = resolve_in_pipeline(
                catalogs, request, timeout=timeout, pipeline=pipeline, sink=writer
            )
    if resolution.explanation is None:
        return resolution

    def attempt(changed: ResolutionRequest) -> Resolution | None:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return None
        try:
            return resolve_in_pipeline(catalogs, changed, timeout=left, pipeline=pipeline)
        except SolveTimeout:
            return None

    return with_names_suggested(catalogs, resolution, attempt)


def check_pipeline(pipeline_file: Path | None) -> Pipeline | None:
    """Reject a bad pipeline file before catalogs are loaded (they take seconds)."""
    return load_pipeline(str(pipeline_file)) if pipeline_file is not None else None
