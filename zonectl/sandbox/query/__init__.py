"""MongoDB query semantics over decoded documents: filters, updates, projection, sort, pipelines."""
