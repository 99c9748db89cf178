"""Shared fixtures: the real data in ../shared, which tests use instead of mocks."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from tests.kube import KubeCluster, start_cluster
from tests.ports import ROOT, SHARED, free_port, shared_path

__all__ = ["ROOT", "SHARED", "free_port", "shared_path"]


@pytest.fixture(autouse=True)
def _private_store(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test sees its own empty catalog store, never the user's real one.

    Tests that need a store set DEPPY_HOME themselves; this default keeps commands that fall back
    to the stored catalogs (``deppy resolve`` without ``--catalog``) independent of the machine.
    """
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path_factory.mktemp("deppy-home")))


@pytest.fixture(autouse=True)
def _collector_thawed() -> Iterator[None]:
    """Commands run in this process (CliRunner) freeze and hold what they loaded, as a command
    that exits after answering may (deppy.workflows.catalog_loading); this process goes on to
    other tests, so each test's catalogs go back to the collector and are let go."""
    yield
    gc.unfreeze()
    from deppy.workflows.catalog_loading import release_held

    release_held()


@pytest.fixture(scope="session")
def kube() -> Iterator[KubeCluster]:
    """A real kube-apiserver for the session (../shared/k8s); skips with a message without one."""
    yield from start_cluster(SHARED)
