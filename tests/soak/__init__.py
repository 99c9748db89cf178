"""The lifecycle soak (issue 18): a changing catalog (catalog.py), the invariants checked after
every step (invariants.py), and the seeded steps and faults that drive the controller (run.py).
benchmarks/soak.py runs the full profile; tests/test_soak.py the short one."""
