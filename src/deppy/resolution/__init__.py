"""Resolution: a request (required and installed packages, cluster facts) in, an answer out.

Requests and their parsing, the variable sources as pipeline nodes (required and installed
packages, bundles and dependencies, runtime and global constraints), candidate order, installed
bundles and their upgrade paths, the output collector, the answer, the explanation in OLM words
and the suggestions (request changes known to resolve), the node library and the shipped
pipelines (default, minimal-version), trace codec and replay source.

Sub-room: ``olmv1/`` (ClusterExtensions and ClusterCatalogs as a request, OLM v1's rule set
and its ways out). ``rule_sets`` picks deppy's own rules (``deppy_rules``) or OLM v1's per
request; deppy's own rules never import ``olmv1/``.

May import: ``catalog``, ``pipeline``, ``explain``, ``solver``, ``errors``, ``input_limits``,
``data``.
"""
