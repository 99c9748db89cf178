"""What installs deppy's controller: ``crds`` (the CustomResourceDefinitions as plain data, and
the group, version and limits the other modules name) and ``manifests`` (``deppy manifests``:
the CRDs, default InputClasses and ProvisionerClass, peering CRDs, RBAC, the Deployment and its
Service).

May import: nothing of deppy but itself — the bottom of the controller, so anything above may
name its group, version and limits.
"""
