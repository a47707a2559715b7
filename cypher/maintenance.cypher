// name: wipe_graph_batched
// Deletes every node and relationship in batches (auto-commit only; tests and large resets); 2,000 nodes a batch, since after a long history each belief carries many TOUCHED edges and 10,000 overflowed a 1 GB heap.
// defines: everything
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS
