"""The sandbox: a simulated sharded cluster that answers as a mongos of a chosen version.

Its floor plan mirrors MongoDB's own parts, top to bottom; a part imports only parts below it
(import-linter's "sandbox inner layers" contract, TYPE_CHECKING imports included):

    uri, launch   `sandbox:` URIs and serving a Sandbox on a local port (the entry points)
    wire/         the network: TCP server, OP_MSG framing, dispatch (the service entry point:
                  admin-only, auth, writeConcern and fail-point checks), the uptime reporter
    seed/         state in and out: cluster files (schema, build), saved state, growth
    commands/     one module per command family; `registry` (the command table and
                  `Request`), `authz` (privileges each command needs), request helpers
    state         `Sandbox`: composes the parts below and the lock every command holds
    balancer/     settings, `balancer_policy` (which migrations), rounds, the
                  active-migrations registry, manual moves
    sampling/     query analysis (7.0+), beside the balancer: the sampler of served
                  queries, the cluster file's simulated workload, readWriteDistribution
    catalog/      collections of documents, the sharding model over them (`Cluster`), chunk
                  stores, config.* views, zone and shardCollection rules
    auth/ query/  users, SCRAM and built-in roles | filters, projection, pipelines, cursors
    failpoints    the failCommand fail point state
    bounds        shard-key bounds: MinKey padding, containment, overlap
    keyorder      BSON order: the sandbox's own port of MongoDB's KeyString
    clock, codec, versions, errors, rates, bsontypes, tostring   at the bottom (rates: copy
                  rates as written; bsontypes: type names; tostring: values in messages)

It imports nothing of zonectl but the exception root and atomic writes: not the forecast, the
twin, the planner, the policy or the model it is there to check (contract "the sandbox stands
alone"; seed/twin_chunks.py reads twin files on its own).

Where a new thing goes: a MongoDB command is a handler in `commands/` (its privileges in
`commands/authz.py`, a version gate with `exists_in=`); a balancer rule goes in `balancer/`; a
config document field is written by `catalog/cluster.py`; a behaviour that differs by release
is a switch in `versions.py`; a cluster-file field is in `seed/schema.py` and `seed/build.py`
(the query mix and analyzers: `seed/workload.py`).
"""
