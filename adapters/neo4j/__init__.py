"""The Neo4j edge: driver settings, the store, and the in-database propagation."""
