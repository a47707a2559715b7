// name: wipe_graph_batched
// Deletes every node and relationship in batches (auto-commit only; tests and large resets); 2,000 nodes a batch, since after a long history each belief carries many TOUCHED edges and 10,000 overflowed a 1 GB heap.
// defines: everything
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS

// name: server_heap_in_use
// The bytes of heap the server's JVM has in use now (benchmarks sample it: scripts/bench/scale_bench.py).
CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes
RETURN attributes.HeapMemoryUsage.value.properties.used AS used

// name: transactions_heap
// Neo4j's estimate of the heap each running transaction holds, one row each (benchmarks sample it).
SHOW TRANSACTIONS YIELD estimatedUsedHeapMemory
RETURN estimatedUsedHeapMemory AS used
