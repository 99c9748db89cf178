"""The test cluster itself works: the fixture every cluster and controller test stands on."""

from __future__ import annotations

from tests.kube import KubeCluster


def test_namespace_round_trip(kube: KubeCluster) -> None:
    namespace = kube.new_namespace("fixture")
    assert namespace in kube.kubectl("get", "namespaces", "-o", "name")
