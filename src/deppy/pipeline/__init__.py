"""pipeline layer of deppy: an observable, configurable, replayable engine (see DESIGN.md).

A pipeline is a DAG of nodes from a :class:`~deppy.pipeline.library.NodeLibrary`, declared in
YAML (:mod:`~deppy.pipeline.config`) and checked before it runs. The engine
(:class:`~deppy.pipeline.engine.Pipeline`) runs each node once, in topological order, passing
batches of variables as events; a sink (:mod:`~deppy.pipeline.sinks`) sees every event, and
:class:`~deppy.pipeline.trace.TraceWriter` writes them as a versioned JSON-lines trace that
:func:`~deppy.pipeline.replay.replay` re-runs without the original sources. This layer knows
nodes, events and variables only: domains (OLM) register their node types and trace codec
(:mod:`~deppy.pipeline.domain`); it imports nothing above the solver.
"""
