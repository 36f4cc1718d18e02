"""Users, SCRAM credentials and built-in roles (mongo:src/mongo/db/auth/)."""
