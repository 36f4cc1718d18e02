"""A twin of a real cluster: its sharding metadata, sizes and learned costs in a file the
sandbox serves (docs/twin.md)."""
