"""Six shards, three hot and three cold; the policy moves the hot/cold boundary of
app.e from 100 to 1300, so 12 chunks of 32 MiB on the hot shards belong to cold."""

CLUSTER = """version: "7.0"
shards:
  - {name: h0, zones: [hot]}
  - {name: h1, zones: [hot]}
  - {name: h2, zones: [hot]}
  - {name: c0, zones: [cold]}
  - {name: c1, zones: [cold]}
  - {name: c2, zones: [cold]}
collections:
  - ns: app.e
    key: {x: 1}
    chunks: 24
    keys: {type: int, start: 0, step: 100}
    chunkSize: {bytes: 33554432, docs: 1000}
zones:
  - {ns: app.e, min: {x: {$minKey: 1}}, max: {x: 100}, zone: cold}
  - {ns: app.e, min: {x: 100}, max: {x: {$maxKey: 1}}, zone: hot}
balancer: {copyRate: 8MiB/s}
"""
POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards: {h0: [hot], h1: [hot], h2: [hot], c0: [cold], c1: [cold], c2: [cold]}
collections:
  app.e:
    ranges:
      - {zone: cold, min: {x: {$minKey: 1}}, max: {x: 1300}}
      - {zone: hot, min: {x: 1300}, max: {x: {$maxKey: 1}}}
"""
