// name: wipe_graph_batched
// Deletes every node and relationship in batches (auto-commit only; tests and large resets).
// defines: everything
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
