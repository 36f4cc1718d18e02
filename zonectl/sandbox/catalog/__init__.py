"""The config server's catalog: collections of documents, the sharding model over them
(shards, databases, collections, chunks, zones), config.* views and the rules that keep it valid."""
