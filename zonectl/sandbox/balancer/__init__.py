"""The balancer (mongo:src/mongo/db/s/balancer/): its settings, the policy that picks
migrations, rounds, the active-migrations registry, manual moves, and what a migration
costs (`costs`: the sandbox's own, never the forecast's)."""
