"""The controller's resolutions: deppy's objects turned into requests, answered, written back.

``requests`` (an ActiveResolution, Input, InputClass or Operator to a ``ResolutionRequest``),
``active_resolutions`` (an ActiveResolution's status), ``units`` (a namespace's Inputs resolved
unit by unit, no API calls), ``namespace_sync`` (what units answer, written back: resolvesets
proposed, the approved set handed on), ``instances_status`` (an Input's ``status.instances``),
``operators`` (the Operator porcelain).

May import: ``workflows`` and everything below the front doors, the controller's shared
plumbing, and its ``catalogs``, ``approval`` and ``install`` jobs; never its wiring (``runner``,
``handlers``), which hands it the objects.
"""
