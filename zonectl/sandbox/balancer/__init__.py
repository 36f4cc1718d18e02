"""The balancer (mongo:src/mongo/db/s/balancer/): its settings, the policy that picks
migrations, rounds, the active-migrations registry and manual moves."""
