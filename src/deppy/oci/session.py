"""One registry session: the exchanges of one push or one pull with a registry, through
:mod:`deppy.oci.exchange`, with every failure turned into one line that names the reference,
the registry and what it did.

Push and pull share it, so they share one deadline per exchange, one body cap, one
credentials lookup, one login (Basic, or a Bearer token for the repository: scope ``pull``
for a pull, ``pull,push`` for a push) and one set of error words. With ``tls_verify`` off,
HTTPS is tried without checking the certificate and then plain HTTP, as skopeo's
``--tls-verify=false`` does. Credentials are sent over HTTPS only; the messages name where
credentials were looked for, never what they are, and registry text has every credential sent
taken out (:func:`redact`).
"""

from __future__ import annotations

import re
from typing import Protocol
from urllib.parse import urljoin, urlsplit

import orjson

from deppy.errors import InputError, excerpt
from deppy.oci.auth import Credential, RegistryAuth, auth_file_paths
from deppy.oci.exchange import (
    DEFAULT_TIMEOUT_S,
    MAX_ANSWER_BYTES,
    Answer,
    ExchangeError,
    exchange,
    sendable_url,
)
from deppy.oci.login import LoginError, challenge_of, token_of, token_url
from deppy.oci.redact import basic_secrets, redact


class RegistryPlace(Protocol):
    """A repository in a registry, as a destination or a reference names it."""

    @property
    def registry(self) -> str: ...
    @property
    def repository(self) -> str: ...
    @property
    def endpoint(self) -> str: ...


TIMEOUT_S = DEFAULT_TIMEOUT_S
LOOPBACK = re.compile(r"(localhost|127(\.\d+){3}|\[::1\])(:\d+)?")
ODD_FIX = "check that it is an OCI registry, and the proxies in front of it"


class RegistryError(InputError):
    """A push that failed; ``retriable`` when trying again later may work (the registry was
    down, slow, odd or answered 5xx), not when the request itself is wrong (credentials, TLS,
    a name)."""

    def __init__(self, where: str, what: str, fix: str, *, retriable: bool = False) -> None:
        super().__init__(where, what, fix)
        self.retriable = retriable


def _tls_fix(destination: RegistryPlace) -> str:
    if LOOPBACK.fullmatch(destination.registry):
        return (
            "give the registry a certificate this machine trusts, or --tls-verify=false "
            "(for a plain-HTTP or loopback registry only)"
        )
    return "give the registry a certificate this machine trusts"


def _error_detail(answer: Answer) -> str:
    """The first of the registry's ``errors`` (code and message) in its answer, or ""."""
    try:
        document = orjson.loads(answer.body)
    except orjson.JSONDecodeError:
        return ""
    errors = document.get("errors") if isinstance(document, dict) else None
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        code, message = errors[0].get("code", ""), errors[0].get("message", "")
        return f": {code} {message}".rstrip() if isinstance(code, str) else ""
    return ""


class RegistrySession:
    """The exchanges of one push or pull (``pull``): the scheme the registry speaks, the login
    it asked for, and every secret sent (to take out of what it says)."""

    def __init__(
        self,
        destination: RegistryPlace,
        auth: RegistryAuth | None,
        *,
        tls_verify: bool,
        timeout: float,
        pull: bool = False,
    ) -> None:
        self.destination = destination
        self.pull = pull
        self.auth = auth
        self.credential: Credential | None = (
            auth.for_registry(destination.registry, destination.repository) if auth else None
        )
        self.tls_verify = tls_verify
        self.timeout = timeout
        self.base = f"https://{destination.endpoint}"
        self.authorization: str | None = None
        self.secrets: list[str] = []
        self.basic: str | None = None  # the Basic header value of the credential
        if self.credential is not None:
            self.secrets += basic_secrets(self.credential.username, self.credential.secret)
            self.basic = self.secrets[-1]

    # -- messages

    def error(self, what: str, fix: str = ODD_FIX, *, retriable: bool = True) -> RegistryError:
        """``what`` the registry did, credentials taken out, as the destination's error."""
        host = self.destination.registry
        return RegistryError(
            str(self.destination),
            redact(f"registry {host} {what}", self.secrets),
            redact(fix, self.secrets),
            retriable=retriable,
        )

    def quote(self, text: str, limit: int = 80) -> str:
        """Registry text for a message: credentials taken out first, then cut short."""
        return excerpt(redact(text, self.secrets), limit)

    def _failed(self, failure: ExchangeError) -> RegistryError:
        host = self.destination.registry
        if failure.kind == "tls":
            return RegistryError(
                str(self.destination),
                redact(f"TLS failure talking to registry {host} ({failure.what})", self.secrets),
                _tls_fix(self.destination),
            )
        if failure.kind == "unreachable":
            return RegistryError(
                str(self.destination),
                f"cannot reach registry {host} ({failure.what})",
                "check the address and that the registry is running",
                retriable=True,
            )
        if failure.kind == "late":
            return self.error(
                failure.what,
                "check the registry and the proxies in front of it, or give it longer "
                "(--registry-timeout; a ProvisionerClass's resolvedCatalog.registryTimeout)",
            )
        return self.error(failure.what)

    def denied(self, code: int) -> RegistryError:
        host, credential = self.destination.registry, self.credential
        if credential is None:
            looked = self.auth.describe() if self.auth else ", ".join(auth_file_paths())
            return self.error(
                f"asks for credentials ({code}) and none were found for it",
                f"log in to {host} (podman login / docker login) so that one of {looked} "
                "holds them",
                retriable=False,
            )
        action = "pull" if self.pull else "push"
        verb = "refused" if code == 401 else f"denied {action} access with"
        return self.error(
            f"{verb} the credentials from {credential.origin} ({code})",
            f"log in to {host} again with an account that may {action} "
            f"{'from' if self.pull else 'to'} {self.destination.repository}",
            retriable=False,
        )

    def answered(self, answer: Answer, method: str) -> RegistryError:
        """The error for an answer that is not what ``method`` expects."""
        if answer.status in (401, 403):
            return self.denied(answer.status)
        reason = self.quote(answer.reason, 60)[1:-1]
        detail = self.quote(_error_detail(answer), 200)[1:-1]
        path = self.quote(urlsplit(answer.url).path, 100)[1:-1]
        return self.error(
            f"answered {answer.status} {reason}{detail} to {method} {path}",
            "check the repository name and tag"
            if self.pull
            else "check the repository name and that the registry accepts pushes",
            retriable=answer.status >= 500 or answer.status == 429,
        )

    # -- exchanges

    def _send(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        body: bytes = b"",
        max_body: int = MAX_ANSWER_BYTES,
    ) -> Answer:
        if self.authorization is not None and urlsplit(url).netloc == urlsplit(self.base).netloc:
            headers = {**headers, "Authorization": self.authorization}
        try:
            return exchange(
                method,
                url,
                headers={"User-Agent": "deppy", **headers},
                timeout=self.timeout,
                tls_verify=self.tls_verify,
                body=body,
                max_body=max_body,
            )
        except ExchangeError as failure:
            raise self._failed(failure) from None

    def send(
        self,
        method: str,
        url: str,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
        *,
        max_body: int = MAX_ANSWER_BYTES,
    ) -> Answer:
        """``method url``, logging in once when the registry asks (401) and may be answered;
        an answer body past ``max_body`` bytes is an error."""
        headers = headers or {}
        answer = self._send(method, url, headers, body, max_body)
        if answer.status == 401 and self._login(answer):
            answer = self._send(method, url, headers, body, max_body)
        return answer

    def connect(self) -> None:
        """Reach ``/v2/`` (HTTPS; plain HTTP after a TLS failure with ``tls_verify`` off) and
        log in when it asks."""
        try:
            answer = exchange(
                "GET",
                f"{self.base}/v2/",
                headers={"User-Agent": "deppy"},
                timeout=self.timeout,
                tls_verify=self.tls_verify,
            )
        except ExchangeError as failure:
            if failure.kind != "tls" or self.tls_verify:
                raise self._failed(failure) from None
            self.base = f"http://{self.destination.endpoint}"
            answer = self._send("GET", f"{self.base}/v2/", {})
        if answer.status == 401 and self._login(answer):
            answer = self._send("GET", f"{self.base}/v2/", {})
        if answer.status == 404:
            raise self.error("answered 404 to GET /v2/: it serves no registry API there")
        if not 200 <= answer.status < 300:
            raise self.answered(answer, "GET")

    def _login(self, answer: Answer) -> bool:
        """Log in as the 401 ``answer`` asks; False when logged in already (the 401 stands)."""
        if self.authorization is not None:
            return False
        try:
            challenge = challenge_of(answer, self.quote)
        except LoginError as error:
            raise self.error(error.what) from None
        credential = self.credential
        if credential is not None and self.base.startswith("http:"):
            raise self.error(
                "asks for credentials over plain HTTP, and deppy sends them only over HTTPS",
                "serve the registry with TLS (--tls-verify=false still skips checking its "
                "certificate)",
                retriable=False,
            )
        if challenge.scheme == "basic":
            if self.basic is None:
                raise self.denied(401)
            self.authorization = self.basic
            return True
        try:
            url = token_url(
                challenge,
                self.destination.repository,
                self.quote,
                actions="pull" if self.pull else "pull,push",
            )
        except LoginError as error:
            raise self.error(error.what) from None
        self.authorization = self._token(url)
        return True

    def _token(self, url: str) -> str:
        """``Bearer TOKEN`` from the realm (with the user and password when there are)."""
        headers = {"User-Agent": "deppy"}
        realm = url.partition("?")[0]
        if self.credential is not None:
            if not url.startswith("https:"):
                raise self.error(
                    f"sends deppy to a plain-HTTP token endpoint ({self.quote(realm)}), and deppy "
                    "sends credentials only over HTTPS",
                    "serve the token endpoint with TLS",
                    retriable=False,
                )
            headers["Authorization"] = self.basic or ""
        try:
            answer = exchange(
                "GET", url, headers=headers, timeout=self.timeout, tls_verify=self.tls_verify
            )
        except ExchangeError as failure:
            raise self._failed(failure) from None
        if answer.status in (401, 403):
            raise self.denied(answer.status)
        if answer.status != 200:
            raise self.error(
                f"sent deppy to token endpoint {self.quote(realm)}, which answered {answer.status}"
            )
        try:
            token = token_of(answer, realm, self.quote)
        except LoginError as error:
            raise self.error(error.what) from None
        self.secrets += [token, f"Bearer {token}"]
        return f"Bearer {token}"

    def upload_url(self, answer: Answer, digest: str) -> str:
        """Where the blob goes: the upload's ``Location``, with ``digest=`` added."""
        location = answer.header("Location")
        if not location:
            raise self.error(f"answered {answer.status} to a blob upload without a Location header")
        try:
            target = sendable_url(urljoin(answer.url, location.strip()))
            parts = urlsplit(target)
            parts.port  # noqa: B018 - raises ValueError for a port that is no number
        except ValueError:
            raise self.error(
                f"answered a blob upload with an unusable Location {self.quote(location)}"
            ) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise self.error(
                f"answered a blob upload with a Location that is no URL: {self.quote(location)}"
            )
        return f"{target}{'&' if parts.query else '?'}digest={digest}"


__all__ = ["TIMEOUT_S", "RegistryError", "RegistryPlace", "RegistrySession"]
