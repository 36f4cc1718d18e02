"""Sandbox command handlers, one module per family; each registers with `registry.command`."""
