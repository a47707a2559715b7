"""Settings of the catalog service."""

# Each catalog instance keeps a pool of 10 connections to Postgres.
POOL_SIZE = 10

# The catalog service runs 8 instances at peak.
PEAK_INSTANCES = 8


def read_database_url(settings: dict) -> str:
    """Catalog reads go to the replica; writes go to the primary."""
    return settings["replica_url"]
