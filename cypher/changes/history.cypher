// History: reading the log's before-images back (engine/memory/history.py), releases, and
// the writes of rollback and revert, each saying what it defines so that the rollback's own
// entry keeps the before-images of what it set back.

// name: history_last_seq
// The seq of the newest change-log entry (0 when there is none).
MATCH (c:Change)
RETURN coalesce(max(c.seq), 0) AS seq

// name: history_start
// The earliest point the log reads back to: the last entry that kept no before-images, else the entry before the oldest kept (the log starts there), else 0; `last`: the newest seq.
CALL () { OPTIONAL MATCH (c:Change) WHERE c.before IS NULL RETURN max(c.seq) AS blind }
CALL () { OPTIONAL MATCH (c:Change) RETURN min(c.seq) AS first, max(c.seq) AS last }
RETURN coalesce(blind, 0) AS blind, coalesce(first, 1) - 1 AS cut, coalesce(last, 0) AS last

// name: history_seq_at_or_before
// The seq of the last entry at or before $at (0 when there is none).
MATCH (c:Change) WHERE c.at <= $at
RETURN coalesce(max(c.seq), 0) AS seq

// name: history_writes_after
// Every entry after $after, oldest first, collected in one record: [seq, at, op, actor, before (JSON text or null), went_in, went_out].
MATCH (c:Change) WHERE c.seq > $after
WITH c ORDER BY c.seq
RETURN collect([c.seq, c.at, c.op, c.actor, c.before, c.went_in, c.went_out]) AS rows

// name: history_put_beliefs
// Sets each of $rows ({id, props, marks}) as its belief's stored definition: the belief made (or its placeholder promoted first), every property of $props set (null removes it; a text other than the embedded one clears the embedding's model: cypher/embedding/upkeep.cypher), its labels other than Belief and the truth labels replaced by `marks`; returns nothing.
// defines: belief $rows.id
UNWIND $rows AS row
MERGE (b:Belief {id: row.id})
SET b += row.props
SET b.embedding_model = CASE WHEN b.embedding_text = coalesce(b.text, '') THEN b.embedding_model END
WITH b, row, [l IN labels(b) WHERE NOT l IN ['Belief', 'In', 'Out', 'Undetermined']] AS marks
REMOVE b:$(marks)
SET b:$(row.marks)

// name: history_delete_justifications
// Deletes the justifications of each of $rows ({id, seqs}) whose seq is in `seqs`; returns nothing.
// defines: belief $rows.id
UNWIND $rows AS row
MATCH (:Belief {id: row.id})<-[:SUPPORTS]-(j:Justification)
WHERE j.seq IN row.seqs
DETACH DELETE j

// name: history_create_justifications
// Creates each of $rows ({belief, seq, kind, label, gate, antecedents, outlist, marked: outlist positions a gate appended}) with its edges to beliefs or placeholders; returns nothing.
// defines: belief $rows.belief
UNWIND $rows AS row
MATCH (b:Belief {id: row.belief})
CREATE (j:Justification {kind: row.kind, label: row.label, seq: row.seq})-[:SUPPORTS]->(b)
SET j.gate = CASE WHEN row.gate THEN true END
WITH j, row
CALL (j, row) {
  UNWIND range(0, size(row.antecedents) - 1) AS pos
  OPTIONAL MATCH (x:Belief {id: row.antecedents[pos]})
  OPTIONAL MATCH (m:Missing {id: row.antecedents[pos]})
  WITH j, pos, coalesce(x, m) AS target
  CREATE (j)-[:REQUIRES {pos: pos}]->(target)
}
CALL (j, row) {
  UNWIND range(0, size(row.outlist) - 1) AS pos
  OPTIONAL MATCH (x:Belief {id: row.outlist[pos]})
  OPTIONAL MATCH (m:Missing {id: row.outlist[pos]})
  WITH j, pos, coalesce(x, m) AS target
  CREATE (j)-[r:UNLESS {pos: pos}]->(target)
  SET r.gate = CASE WHEN pos IN row.marked THEN true END
}

// name: history_set_links
// For each of $rows ({id, from: [path, lines] or null, duplicate_of: [id, props] or null}): the belief's FROM edge and DUPLICATE_OF edge replaced by the given ones; returns nothing.
// defines: belief $rows.id
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
CALL (b) { MATCH (b)-[f:FROM]->(:Source) DELETE f }
CALL (b) { MATCH (b)-[d:DUPLICATE_OF]->(:Belief) DELETE d }
CALL (b, row) {
  WITH b, row WHERE row.from IS NOT NULL
  MATCH (s:Source {path: row.from[0]})
  CREATE (b)-[:FROM {lines: row.from[1]}]->(s)
}
CALL (b, row) {
  WITH b, row WHERE row.duplicate_of IS NOT NULL
  MATCH (k:Belief {id: row.duplicate_of[0]})
  CREATE (b)-[d:DUPLICATE_OF]->(k)
  SET d = row.duplicate_of[1]
}

// name: history_dependents_of
// One record, `ids`: the beliefs with a justification naming one of $ids (their labels follow a removal).
UNWIND $ids AS bid
MATCH (:Belief {id: bid})<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(d:Belief)
RETURN collect(DISTINCT d.id) AS ids

// name: history_remove_beliefs
// Removes each belief of $ids with its justifications and links: one still named by a justification or nogood becomes the :Missing placeholder it was before it was added, the rest are deleted; returns nothing.
// defines: belief $ids
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
CALL (b) { MATCH (b)<-[:SUPPORTS]-(j:Justification) DETACH DELETE j }
CALL (b) { MATCH (b)-[r:FROM|DUPLICATE_OF|SUPERSEDED_BY]-() DELETE r }
WITH b, EXISTS { (b)<-[:REQUIRES|UNLESS|MEMBER]-() } AS named
CALL (b, named) {
  WITH b WHERE named
  REMOVE b:Belief:In:Out:Undetermined:Defeater:Challenge:Defence:Summary
  SET b = {id: b.id}, b:Missing
}
CALL (b, named) {
  WITH b WHERE NOT named
  DETACH DELETE b
}

// name: history_put_supersessions
// Replaces the SUPERSEDED_BY link leaving each $rows.old by the one to `new` with `props` (none when `new` is null); returns nothing.
// defines: supersession $rows.old
UNWIND $rows AS row
MATCH (o:Belief {id: row.old})
CALL (o) { MATCH (o)-[s:SUPERSEDED_BY]->() DELETE s }
CALL (o, row) {
  WITH o, row WHERE row.new IS NOT NULL
  MATCH (n:Belief {id: row.new})
  CREATE (o)-[s:SUPERSEDED_BY]->(n)
  SET s = row.props
}

// name: history_put_sources
// Sets each of $rows ({path, props}) as its Source node's properties (made when absent); returns nothing.
// defines: source $rows.path
UNWIND $rows AS row
MERGE (s:Source {path: row.path})
SET s = row.props

// name: history_remove_sources
// Deletes the Source nodes of $paths with their FROM edges; returns nothing.
// defines: source $paths
UNWIND $paths AS path
MATCH (s:Source {path: path})
DETACH DELETE s

// name: history_put_network
// Sets the NetworkInfo node's properties to $props (deletes it when $props is null); returns nothing.
// defines: network
MERGE (n:NetworkInfo {key: 'network'})
SET n = coalesce($props, {key: 'network'})
WITH n WHERE $props IS NULL
DELETE n

// name: history_put_namespaces
// Sets each of $rows ({name, props}) as its Namespace node's properties, deleting it when props is null; returns nothing.
// defines: namespace $rows.name
UNWIND $rows AS row
MERGE (n:Namespace {name: row.name})
SET n = coalesce(row.props, {name: row.name})
WITH n, row WHERE row.props IS NULL
DELETE n

// name: history_release
// The release named $release, if any.
MATCH (r:Release {name: $release})
RETURN r {.*} AS release

// name: history_releases
// Every release, oldest point first.
MATCH (r:Release)
RETURN r {.*} AS release
ORDER BY r.seq, r.name

// name: history_create_release
// Creates the release $props (name unique by constraint); returns nothing.
// defines: nothing (releases name points of the log, outside the network)
CREATE (r:Release)
SET r = $props

// name: history_lowest_release
// The lowest seq a release names (null when there is none) and its name.
MATCH (r:Release)
WITH r ORDER BY r.seq LIMIT 1
RETURN r.seq AS seq, r.name AS name

// name: history_prune_reach
// The highest seq of the entries older than $before (what `log --prune` would cut), null when none.
MATCH (c:Change) WHERE c.at < $before
RETURN max(c.seq) AS seq
