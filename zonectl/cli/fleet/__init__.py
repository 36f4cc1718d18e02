"""Fleet runs of the cluster commands: the inventory options every cluster command takes
(`options`), the per-cluster target (`context`), running the chosen clusters (`run`) and
stopping them on Ctrl-C (`interrupt`), their routed output (`streams`, `output`) and
`zonectl fleet` itself (`command`)."""
