"""Fleet plans: what a catalog release or a platform upgrade means for many clusters.

* ``inputs`` — which clusters (export files, folders of them, kubeconfig contexts);
* ``plan`` — one cluster in, one plan record out (pure apart from reading the cluster; built
  from the single-cluster workflows, ``upgrades`` above all);
* ``extensions`` — the cluster's OLM v1 ClusterExtensions in that record, under OLM v1's rules
  (``olmv1.upgrades``), beside its OLM v0 Subscriptions;
* ``rollup`` — the fleet's summary from the records (waves, blockers, versions), pure;
* ``report`` — the summary as text for a screen and as one self-contained HTML page;
* ``fanout`` — running the plan over a fleet: in this process, or on dask (an embedded local
  scheduler, or a dask.distributed cluster), records streamed back in input order.

Only ``fanout`` imports dask, so the plan and its roll-up are testable without it.
"""
