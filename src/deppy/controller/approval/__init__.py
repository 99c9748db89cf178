"""What the controller hands a provisioner, and whether it may go ahead.

``resolveset`` (the ConfigMap, Bundle and Instance of the ``deppy.resolveset`` ProvisionerClass:
the resolved set, named by its content), ``policies`` (that class's approval policies: AllowAll,
DenyAll, Android; the RBAC comparison they use is ``deppy.catalog.permissions``, where fleet
plans use it too), ``proposals`` (one pending proposal per unit: older ones superseded).
``deppy approve`` is ``approval_command``, at the top beside ``runner``, whose client it uses.

May import: ``catalog``, ``cluster``, ``errors``, the controller's ``install`` and its plumbing
(``kube``, ``conditions``); never ``resolving`` (which decides what to propose), ``catalogs`` or
the wiring.
"""
