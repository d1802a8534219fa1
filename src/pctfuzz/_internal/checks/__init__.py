"""The checks: invariants, the differential oracle, the divergence registry, strategies."""
