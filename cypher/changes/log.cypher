// The change log: one (:Change) per committed write transaction, outside the network
// (labels, verify and export never read it). TOUCHED edges say what a change did to a belief.

// name: append_change
// Appends one change-log entry and its TOUCHED edges to the beliefs named in $touches (edges: false marks a bulk entry whose touches are its id lists only; $before: the before-images as JSON, null when the write redefined everything); returns nothing.
// defines: nothing (the change log)
CREATE (c:Change {seq: $seq, at: $at, actor: $actor, op: $op, args: $args, reason: $reason,
                  went_in: $went_in, went_out: $went_out, retracted_by_nogood: $by_nogood,
                  created: $created, defined: $defined, removed: $removed, before: $before})
SET c.edges = CASE WHEN $edges THEN null ELSE false END
WITH c
CALL (c) {
  UNWIND $touches AS t
  MATCH (b:Belief {id: t.id})
  CREATE (c)-[:TOUCHED {did: t.did, was: t.was}]->(b)
}

// name: link_change
// Adds TOUCHED edges from the entry $seq to more beliefs (a large write's rest); returns nothing.
// defines: nothing (the change log)
MATCH (c:Change {seq: $seq})
UNWIND $touches AS t
MATCH (b:Belief {id: t.id})
CREATE (c)-[:TOUCHED {did: t.did, was: t.was}]->(b)

// name: change_entries_newest
// Entries matching the filters, newest first, at most $limit, collected in one record.
MATCH (c:Change)
WHERE c.seq > coalesce($after, -1) AND ($since IS NULL OR c.at >= $since)
  AND ($op IS NULL OR c.op = $op) AND ($actor IS NULL OR c.actor = $actor)
  AND ($belief IS NULL OR $belief IN c.removed
       OR EXISTS { (c)-[:TOUCHED]->(:Belief {id: $belief}) }
       OR (c.edges = false AND ($belief IN c.created OR $belief IN c.went_in
                                OR $belief IN c.went_out)))
WITH c ORDER BY c.seq DESC LIMIT $limit
RETURN collect(c {.*}) AS entries

// name: change_entries_oldest
// Entries matching the filters, oldest first, at most $limit, collected in one record.
MATCH (c:Change)
WHERE c.seq > coalesce($after, -1) AND ($since IS NULL OR c.at >= $since)
  AND ($op IS NULL OR c.op = $op) AND ($actor IS NULL OR c.actor = $actor)
  AND ($belief IS NULL OR $belief IN c.removed
       OR EXISTS { (c)-[:TOUCHED]->(:Belief {id: $belief}) }
       OR (c.edges = false AND ($belief IN c.created OR $belief IN c.went_in
                                OR $belief IN c.went_out)))
WITH c ORDER BY c.seq ASC LIMIT $limit
RETURN collect(c {.*}) AS entries

// name: belief_history
// The entries that touched the belief, oldest first, each with the TOUCHED edge's did and was.
MATCH (:Belief {id: $id})<-[t:TOUCHED]-(c:Change)
RETURN c {.*} AS change, t.did AS did, t.was AS was
ORDER BY c.seq

// name: seq_before
// The seq of the last entry earlier than $at (0 when there is none).
MATCH (c:Change) WHERE c.at < $at
RETURN coalesce(max(c.seq), 0) AS seq

// name: touches_after
// For every entry after $after: [seq, [[belief id, did, was], ...], created ids, removed ids, edges flag, went_in, went_out], collected in one record.
MATCH (c:Change) WHERE c.seq > $after
CALL (c) {
  OPTIONAL MATCH (c)-[t:TOUCHED]->(b:Belief)
  RETURN collect([b.id, t.did, t.was]) AS touched
}
RETURN collect([c.seq, touched, c.created, c.removed, c.edges, c.went_in, c.went_out]) AS rows

// name: prune_changes
// Deletes the entries older than $before with their edges; returns how many.
// defines: nothing (the change log)
MATCH (c:Change) WHERE c.at < $before
DETACH DELETE c
RETURN count(*) AS pruned

// name: first_seq_since
// The seq of the first entry at or after $at (null when there is none).
MATCH (c:Change) WHERE c.at >= $at
RETURN min(c.seq) AS seq

// name: truths_of
// [id, truth] of each named belief that exists, collected in one record.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN collect([bid, CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED'
                     ELSE 'OUT' END]) AS pairs
