"""The Kubernetes front door: deppy's CRDs and the controller that serves them (kopf).

Thin: it wires ``workflows``, ``resolution`` and ``cluster`` to the API server; state lives in the
API server. May import everything below the front doors; never ``cli`` or ``service``.
"""
