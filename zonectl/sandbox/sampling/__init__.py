"""Query analysis (7.0+): which collections sample their queries (config.queryAnalyzers),
the sampler that records the queries the sandbox serves (config.sampledQueries and
config.sampledQueriesDiff), the simulated workload of a cluster file, and the read/write
distribution `analyzeShardKey` computes from the samples.

MongoDB sources: src/mongo/db/s/configure_query_analyzer_cmd.cpp, src/mongo/s/
analyze_shard_key_{common,documents,server_parameters}.idl, src/mongo/db/s/
analyze_shard_key_read_write_distribution.cpp and jstests/sharding/analyze_shard_key/
(see docs/sandbox-fidelity.md, "Query sampling").
"""
