"""Workflows: the everyday questions every front door asks, answered once.

Search, show (package description and upgrade graph), upgrades, what-if (next cluster version),
validate (would this bundle install), catalog check, resolve with a pipeline/trace, and where a
front door's catalogs come from (paths, the store, the embedded example).

May import: ``resolution``, ``catalog``, ``store``, ``explain``, ``pipeline``, ``solver``,
``errors``, ``data``. Never a front door (``cli``, ``service``, ``controller``).
"""
