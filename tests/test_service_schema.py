"""Property-based tests of the OpenAPI description (schemathesis): requests generated from every
operation's schema — and ones that break it — never get a 500, and every error is a problem."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings

from tests.conftest import shared_path
from tests.service_support import paths_app

APP = paths_app(
    f"{shared_path('catalogs', 'odf-operator-dev-catalog')}=odf",
    f"{shared_path('catalogs', 'redhat-operator-index-excerpts')}=redhat:1",
    deadline=2.0,
)
schemathesis.serializer.alias("application/gzip", "application/octet-stream")
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_request_gets_a_server_error(case: schemathesis.Case) -> None:
    response = case.call()
    assert response.status_code < 500 or response.status_code == 503, response.text
    if response.status_code >= 400:
        assert response.headers["content-type"][0].startswith("application/problem+json"), (
            response.status_code,
            response.text,
        )
        assert "Traceback" not in response.text
