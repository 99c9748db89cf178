"""What the controller hands a provisioner, and whether it may go ahead.

``resolveset`` (the ConfigMap, Bundle and Instance of the ``deppy.resolveset`` ProvisionerClass:
the resolved set, named by its content), ``policies`` (that class's approval policies: AllowAll,
DenyAll, Android), ``permissions`` (the RBAC rules a bundle's CSV asks for, and which are new),
``proposals`` (one pending proposal per unit: older ones superseded). ``deppy approve`` is
``approval_command``, at the top beside ``runner``, whose client it uses.

May import: ``catalog``, ``cluster``, ``errors``, the controller's ``install`` and its plumbing
(``kube``, ``conditions``); never ``resolving`` (which decides what to propose), ``catalogs`` or
the wiring.
"""
