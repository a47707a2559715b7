// name: take_write_lock
// Takes the exclusive write lock (a write on the one :WriteLock node, created if absent) that serializes every labelling write; returns how many writes it has serialized, and the mark of an import in parts (null when none holds the memory).
// defines: nothing (the write lock)
MERGE (l:WriteLock {key: 'labels'})
SET l.writes = coalesce(l.writes, 0) + 1
RETURN l.writes AS writes, l.importing AS importing, l.importing_mark AS mark,
       l.importing_done AS done, l.importing_root AS root

// name: take_import_part_lock
// Takes the write lock for one part of the import in parts holding $token, counting the part when the mark is still that import's; returns the mark found (null: none), its description and the parts written.
// defines: nothing (the write lock)
MERGE (l:WriteLock {key: 'labels'})
SET l.importing_done = CASE WHEN l.importing = $token THEN coalesce(l.importing_done, 0) + 1
                            ELSE l.importing_done END,
    l.importing_at = CASE WHEN l.importing = $token THEN $at ELSE l.importing_at END
RETURN l.importing AS importing, l.importing_mark AS mark, l.importing_done AS done,
       l.importing_root AS root

// name: set_import_mark
// Takes the write lock and sets the mark of an import in parts ($token, described by $mark, with the memory's recorded root) unless one is set; returns the mark now held, its description, the parts written and the root, and how many nodes of a network the memory holds (what `reset` would delete, the network's info node aside).
// defines: nothing (the write lock)
MERGE (l:WriteLock {key: 'labels'})
SET l.importing_mark = CASE WHEN l.importing IS NULL THEN $mark ELSE l.importing_mark END,
    l.importing_done = CASE WHEN l.importing IS NULL THEN 0 ELSE l.importing_done END,
    l.importing_at = CASE WHEN l.importing IS NULL THEN $at ELSE l.importing_at END,
    l.importing = coalesce(l.importing, $token)
WITH l
OPTIONAL MATCH (info:NetworkInfo {key: 'network'})
SET l.importing_root = CASE WHEN l.importing = $token THEN info.root
                            ELSE l.importing_root END
WITH l
CALL () {  // each label's count from the count store: no scan of a full memory
  MATCH (n:Belief) RETURN count(n) AS nodes
  UNION ALL MATCH (n:Missing) RETURN count(n) AS nodes
  UNION ALL MATCH (n:Justification) RETURN count(n) AS nodes
  UNION ALL MATCH (n:Nogood) RETURN count(n) AS nodes
  UNION ALL MATCH (n:Run) RETURN count(n) AS nodes
  UNION ALL MATCH (n:Round) RETURN count(n) AS nodes
  UNION ALL MATCH (n:DeriveRun) RETURN count(n) AS nodes
  UNION ALL MATCH (n:DeriveRound) RETURN count(n) AS nodes
  UNION ALL MATCH (n:Source) RETURN count(n) AS nodes
  UNION ALL MATCH (n:PairVerdict) RETURN count(n) AS nodes
  UNION ALL MATCH (n:Namespace) RETURN count(n) AS nodes
}
WITH l, sum(nodes) AS nodes
RETURN l.importing AS importing, l.importing_mark AS mark, l.importing_done AS done,
       l.importing_root AS root, nodes

// name: set_reset_mark
// Takes the write lock and sets the mark of a reset that empties a large memory in batches ($token, described by $mark), over the mark of an import that stopped (a reset is its way out); returns nothing.
// defines: nothing (the write lock)
MERGE (l:WriteLock {key: 'labels'})
SET l.importing = $token, l.importing_mark = $mark, l.importing_done = 0, l.importing_at = $at

// name: clear_import_mark
// Clears the mark of an import in parts from the write lock (the import's last part, or a reset); returns nothing.
// defines: nothing (the write lock)
MATCH (l:WriteLock {key: 'labels'})
REMOVE l.importing, l.importing_mark, l.importing_done, l.importing_at, l.importing_root

// name: transactions_tagged
// Returns the ids of the running transactions whose metadata carries the given write tag (a writer still waiting for the lock).
SHOW TRANSACTIONS
YIELD transactionId, metaData
WHERE metaData.eem_write = $tag
RETURN transactionId

// name: terminate_transactions
// Terminates the given transactions (rolled back; their locks released); returns one row per id with its outcome.
TERMINATE TRANSACTIONS $ids
