"""zonectl: policy-as-code for MongoDB sharding zones and the balancer."""

__version__ = "0.1.0"
