"""Why a collection is not moving: MongoDB's balancer rules over the cluster's facts, ported
from its source (each rule cites where), and each collection's state and reasons. Pure: no
I/O, no clock; the facts are read in zonectl/mongo/explain_read.py."""
