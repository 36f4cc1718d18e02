"""The application layer between the commands (cli/) and what they drive (mongo/, plan/,
apply/, forecast/): the sequence read cluster -> expand the policy's patterns -> plan ->
impacts -> plan checks -> forecast, once. Its functions take an open
`zonectl.mongo.connect.Connection` and plain inputs (the desired state, an instant,
namespaces, flags), return results and warnings as values, and print nothing; a command
parses its options, calls them, renders what they return and maps it to an exit code.

- `plan`: the pipeline `plan` runs (`read_plan`, `plan_and_forecast`);
- `policy_plan`: the policy planned against the live cluster (status and metrics too);
- `checks`: impacts attached to a plan, the ZA201/ZA202 plan checks;
- `after`: the zone layout once a plan has run (pure), what the forecast reads against;
- `forecast`: the forecast's reads and the forecast;
- `apply`: what apply prepares under its lease, a saved plan's freshness, the dry run;
- `rotate`, `clock`: rotate's window plan, its refusals and its clock guards;
- `namespaces`: `--namespace` checked and expanded; `boundaries`: firehose boundaries;
- `ports`: the mongo implementations of apply's ports; `listeners`: the command echo
  and footprint a connection is opened with; `fleet`: a fleet run's shard check;
- `notice`: a warning with detail lines, handed back instead of printed;
- the read-only commands: `status` (with `status_report`, the report built from what
  mongo/status.py read), `metrics`, `export`, `analyze`, `doctor`, `twin` (the capture
  written to its files), `recover`.

Nothing here is imported at package import: `import zonectl.session.boundaries` stays
light (the CLI's common options import it)."""
