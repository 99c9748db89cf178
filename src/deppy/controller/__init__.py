"""The Kubernetes front door: deppy's CRDs and the controller that serves them (kopf).

Thin: it wires ``workflows``, ``resolution`` and ``cluster`` to the API server; state lives in the
API server. May import everything below the front doors; never ``cli`` or ``service``.

One sub-package per job (each ``__init__`` says what lives there and what it may import). They
never import the wiring (the top modules that hand them objects), and import each other one way
only: resolving and olmv1 use catalogs, approval and install; approval uses install; install uses
nothing (pyproject.toml's contracts):

* ``catalogs/``: ``sources`` (where a Catalog's content comes from), ``loading`` (one loaded,
  its status written), ``cluster_catalogs`` (OLM v1's ClusterCatalogs loaded by digest),
  ``cache`` (the last good content of each, and its health);
* ``resolving/``: ``active_resolutions`` (an ActiveResolution's status), ``requests`` (deppy's
  objects to a ``ResolutionRequest``), ``units`` (a namespace's Inputs resolved unit by unit, no
  API calls), ``namespace_sync`` (what units answer, written back), ``instances_status``,
  ``operators`` (the Operator porcelain);
* ``approval/``: ``resolveset`` (the ConfigMap, Bundle and Instance handed to a provisioner —
  what is approved), ``policies`` (the ProvisionerClass policies), ``proposals`` (one pending
  proposal per unit: older ones superseded), ``permissions`` (a CSV's RBAC rules and which are
  new);
* ``olmv1/``: ``provisioner`` (approved sets of an ``deppy.io/olm-v1`` class written as OLM v1
  ClusterExtensions, their conditions mirrored on the Instance), ``extensions`` (one pinned
  ClusterExtension, and whether one is deppy's), ``explanations`` (an Event where OLM v1 finds
  no bundle);
* ``install/``: ``crds`` (the definitions as data), ``manifests`` (``deppy manifests``).

Here, at the top, the wiring: ``runner`` (``deppy controller``: kopf in the foreground),
``handlers`` (one kopf handler per event, each handing the object on), ``namespace_queue``
(namespaces resolved once their events go quiet, retried after a failure), ``health`` (the
health port), ``approval_command`` (``deppy approve``; it connects as ``runner`` does). And the
plumbing the jobs share: ``runtime`` (what every handler shares), ``kube`` (the API door;
resourceVersion-guarded status writes), ``conditions``, ``fields`` (an object's fields read
without trusting their types), ``observe`` (metrics, Events and log lines, one call per
happening), ``metrics``, ``events``.
"""
