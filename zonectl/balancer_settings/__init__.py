"""MongoDB's balancer settings as data: one row per setting (policy key, type and bounds,
where MongoDB stores it, the release that has it, how it is written, how it is shown).
The policy schema, the planner, export, status and docs/balancer-settings.md read the rows."""
