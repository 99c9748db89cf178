"""OLM v0 at the resolution layer: its resolver's rule set (operator-lifecycle-manager's
pkg/controller/registry/resolver), chosen per request with ``rules: olm-v0``.

``channels`` (a channel walked head first along replaces, skipped entries left out, or OLM
v0's error for a channel with no single head), ``rules`` (``OLMv0Rules``: a Subscription's
candidates, an installed CSV's next step, a dependency's order, OLM v0's refusals in its words).
Like OLM v1's rules (``resolution.olmv1``) it never imports deppy's own, nor they it.
"""

from deppy.resolution.olmv0.channels import ChannelOrder, sort_channel
from deppy.resolution.olmv0.rules import (
    DEPRECATED_PROPERTY,
    OLMv0Rules,
    SubscriptionOutcome,
    catalog_order,
    olm_deprecated,
    subscription_outcome,
)

__all__ = [
    "DEPRECATED_PROPERTY",
    "ChannelOrder",
    "OLMv0Rules",
    "SubscriptionOutcome",
    "catalog_order",
    "olm_deprecated",
    "sort_channel",
    "subscription_outcome",
]
