"""What every resolution node can see: the catalogs, the request and shared caches."""

from __future__ import annotations

from dataclasses import dataclass, field

from deppy.catalog.catalog_set import BundleSource
from deppy.resolution.ordering import CandidateOrder
from deppy.resolution.request import ResolutionRequest


@dataclass
class ResolutionContext:
    catalogs: BundleSource
    request: ResolutionRequest
    order: CandidateOrder
    warnings: list[str] = field(default_factory=list)
    suggest: bool = True  # False in the resolutions that check a suggestion

    @classmethod
    def create(
        cls, catalogs: BundleSource, request: ResolutionRequest, *, suggest: bool = True
    ) -> ResolutionContext:
        if request.sources:
            catalogs = catalogs.restricted(request.sources)
        return cls(catalogs, request, CandidateOrder(catalogs), suggest=suggest)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
