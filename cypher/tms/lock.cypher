// name: take_write_lock
// Takes the exclusive write lock (a write on the one :WriteLock node, created if absent) that serializes every labelling write; returns how many writes it has serialized.
// defines: nothing (the write lock)
MERGE (l:WriteLock {key: 'labels'})
SET l.writes = coalesce(l.writes, 0) + 1
RETURN l.writes AS writes

// name: transactions_tagged
// Returns the ids of the running transactions whose metadata carries the given write tag (a writer still waiting for the lock).
SHOW TRANSACTIONS
YIELD transactionId, metaData
WHERE metaData.eem_write = $tag
RETURN transactionId

// name: terminate_transactions
// Terminates the given transactions (rolled back; their locks released); returns one row per id with its outcome.
TERMINATE TRANSACTIONS $ids
