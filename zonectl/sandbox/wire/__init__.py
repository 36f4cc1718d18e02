"""The network side of the mongos: TCP server, wire-protocol framing, command dispatch, and the
uptime report a mongos writes about itself."""
