"""The Kubernetes front door: deppy's CRDs and the controller that serves them (kopf).

Thin: it wires ``workflows``, ``resolution`` and ``cluster`` to the API server; state lives in the
API server. May import everything below the front doors; never ``cli`` or ``service``.

Its modules, by job:

* running: ``runner`` (``deppy controller``: kopf in the foreground), ``handlers`` (one kopf
  handler per event, each handing the object on), ``namespace_queue`` (namespaces resolved once
  their events go quiet, retried after a failure), ``runtime`` (what every handler shares),
  ``kube`` (the API door; resourceVersion-guarded status writes), ``conditions``;
* installing: ``crds`` (the definitions as data), ``manifests`` (``deppy manifests``);
* catalogs: ``catalog_sources`` (where a Catalog's content comes from), ``catalogs`` (one loaded,
  its status written), ``catalog_cache`` (the last good content of each, and its health);
* resolving: ``active_resolutions`` (an ActiveResolution's status), ``requests`` (deppy's objects
  to a ``ResolutionRequest``), ``units`` (a namespace's Inputs resolved unit by unit, no API
  calls), ``namespace_sync`` (what units answer, written back), ``instances_status``,
  ``resolveset`` (the ConfigMap, Bundle and Instance handed to a provisioner), ``operators``
  (the Operator porcelain);
* approval: ``approval`` (the ProvisionerClass policies), ``proposals`` (one pending proposal per
  unit: older ones superseded), ``permissions`` (a CSV's RBAC rules and which are new),
  ``approval_command`` (``deppy approve``).
"""
