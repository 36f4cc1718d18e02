"""Running one reshardCollection under apply's safeguards: progress from the server's own
figures, --budget, Ctrl-C (abort and wait), --detach. See `runner`."""
