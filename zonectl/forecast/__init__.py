"""Forecast: how long moving data into its zones takes, by the balancer or by `--migrate`.

Pure arithmetic over chunks (shard, bytes, zone): no clock, no I/O; `now` is passed in.
`units` parses copy rates and sizes, `timing` is the cost of one migration, `learn` fits
it to a cluster's migration history (config.changelog entries, passed in), `eager`
simulates zonectl's parallel scheduler, `balancer` simulates balancer rounds inside an
active window, `report` assembles both per namespace and in total.
"""
