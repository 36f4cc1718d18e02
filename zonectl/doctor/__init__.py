"""`zonectl doctor`'s pure part: the facts read from a cluster, the checks made of them,
the privileges each zonectl command needs, and the text/JSON views. No I/O here."""
