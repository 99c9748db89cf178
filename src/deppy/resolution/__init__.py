"""Resolution: a request (required and installed packages, cluster facts) in, an answer out.

Requests and their parsing, the variable sources as pipeline nodes (required and installed
packages, bundles and dependencies, runtime and global constraints), candidate order, installed
bundles and their upgrade paths, the output collector, the answer, the explanation in OLM words
and the suggestions (request changes known to resolve), the node library and the shipped
pipelines (default, minimal-version), trace codec and replay source.

May import: ``catalog``, ``pipeline``, ``explain``, ``solver``, ``errors``, ``input_limits``,
``data``.
"""
