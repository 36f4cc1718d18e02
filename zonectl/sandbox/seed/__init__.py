"""Getting a sandbox's state in and out: cluster files, saved state, simulated growth."""
