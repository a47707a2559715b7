// name: ensure_placeholders
// Creates a :Missing placeholder for every given id that names no belief yet; returns nothing.
// defines: nothing (placeholders of ids not added yet)
UNWIND $ids AS ref
WITH DISTINCT ref
WHERE NOT EXISTS { MATCH (:Belief {id: ref}) }
MERGE (:Missing {id: ref})

// name: promote_placeholders
// Turns the :Missing placeholders of the given ids into beliefs, keeping their edges; returns their ids.
// defines: belief $ids
UNWIND $ids AS ref
MATCH (m:Missing {id: ref})
REMOVE m:Missing
SET m:Belief
RETURN m.id AS id

// name: create_belief_nodes
// Creates (or fills a promoted placeholder with) one belief per row; returns nothing.
// defines: belief $rows.id
UNWIND $rows AS row
MERGE (b:Belief {id: row.id})
SET b += row.props

// name: create_justifications
// Creates each justification with its SUPPORTS, REQUIRES and UNLESS edges; returns nothing.
// defines: belief $rows.belief
UNWIND $rows AS row
MATCH (b:Belief {id: row.belief})
CREATE (j:Justification {kind: row.kind, label: row.label, seq: row.seq})-[:SUPPORTS]->(b)
SET j.gate = CASE WHEN row.gate THEN true END
WITH j, row
CALL (j, row) {
  UNWIND range(0, size(row.antecedents) - 1) AS pos
  WITH j, pos, row.antecedents[pos] AS ref
  OPTIONAL MATCH (x:Belief {id: ref})
  OPTIONAL MATCH (m:Missing {id: ref})
  WITH j, pos, coalesce(x, m) AS target
  CREATE (j)-[:REQUIRES {pos: pos}]->(target)
}
CALL (j, row) {
  UNWIND range(0, size(row.outlist) - 1) AS pos
  WITH j, pos, row.outlist[pos] AS ref
  OPTIONAL MATCH (x:Belief {id: ref})
  OPTIONAL MATCH (m:Missing {id: ref})
  WITH j, pos, coalesce(x, m) AS target
  CREATE (j)-[:UNLESS {pos: pos}]->(target)
}

// name: next_justification_seq
// For each given belief, the seq the next justification added to it gets.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
OPTIONAL MATCH (b)<-[:SUPPORTS]-(j:Justification)
RETURN bid AS id, coalesce(max(j.seq), -1) + 1 AS seq

// name: set_pins
// Records retract / assert decisions on the given beliefs; returns each one found, whether it was IN, whether it is a premise, and how many nogoods exist.
// defines: belief $ids
CALL () { MATCH (n:Nogood) RETURN count(n) AS nogoods }
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
WITH b, nogoods, b:In AS was_in
SET b.retracted = $retracted,
    b.asserted = $asserted,
    b.retracted_at = $retracted_at,
    b.retract_reason = $reason,
    b.updated_at = $at
RETURN b.id AS id, elementId(b) AS element, was_in,
       NOT EXISTS { (b)<-[:SUPPORTS]-(j:Justification) WHERE j.gate IS NULL } AS premise, nogoods

// name: create_nogood
// Creates a nogood with MEMBER edges to its beliefs (or placeholders); returns nothing.
// defines: nogood $id
CREATE (n:Nogood {id: $id, discovered: $discovered, resolution: $resolution})
WITH n
UNWIND range(0, size($members) - 1) AS pos
OPTIONAL MATCH (x:Belief {id: $members[pos]})
OPTIONAL MATCH (m:Missing {id: $members[pos]})
WITH n, pos, coalesce(x, m) AS target
CREATE (n)-[:MEMBER {pos: pos}]->(target)

// name: set_nogood_resolution
// Records how a nogood was last resolved; returns nothing.
// defines: nogood $id
MATCH (n:Nogood {id: $id})
SET n.resolution = $resolution

// name: save_network_info
// Keeps the network file's meta and repos sections for export; returns nothing.
// defines: network
MERGE (n:NetworkInfo {key: 'network'})
SET n.meta = $meta, n.repos = $repos

// name: delete_everything
// Deletes every node this project writes, in the current transaction; returns how many.
// defines: everything
MATCH (n)
WHERE n:Belief OR n:Missing OR n:Justification OR n:Nogood OR n:Run OR n:Round
   OR n:DeriveRun OR n:DeriveRound OR n:NetworkInfo OR n:Source OR n:PairVerdict
   OR n:Namespace
DETACH DELETE n
RETURN count(*) AS deleted

// name: empty_network_batched
// Deletes the nodes delete_everything deletes but the network's info node, 2,000 a transaction (auto-commit only: a reset of a memory too large for one transaction, under the mark; the reset's own write then deletes the rest and logs it); returns nothing.
// defines: everything
MATCH (n)
WHERE n:Belief OR n:Missing OR n:Justification OR n:Nogood OR n:Run OR n:Round
   OR n:DeriveRun OR n:DeriveRound OR n:Source OR n:PairVerdict OR n:Namespace
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS

// name: create_labelled_beliefs
// Creates beliefs that already carry their final truth labels and depth (bulk import); returns [id, element id] pairs, collected in one record.
// defines: belief new $rows.props.id
UNWIND $rows AS row
CREATE (b:$(row.labels))
SET b = row.props
RETURN collect([b.id, elementId(b)]) AS pairs

// name: create_placeholders
// Creates a :Missing placeholder for each given id (bulk import, ids known to be absent); returns [id, element id] pairs, collected in one record.
// defines: nothing (placeholders of ids not added yet)
UNWIND $ids AS ref
CREATE (m:Missing {id: ref})
RETURN collect([m.id, elementId(m)]) AS pairs

// name: create_justifications_by_element
// Creates justifications whose belief and named nodes are given by element id (bulk import); returns nothing.
// defines: nothing (its beliefs are create_labelled_beliefs' of the same write)
UNWIND $rows AS row
MATCH (b) WHERE elementId(b) = row.belief
CREATE (j:Justification {kind: row.kind, label: row.label, seq: row.seq})-[:SUPPORTS]->(b)
SET j.gate = CASE WHEN row.gate THEN true END
WITH j, row
CALL (j, row) {
  UNWIND range(0, size(row.antecedents) - 1) AS pos
  MATCH (a) WHERE elementId(a) = row.antecedents[pos]
  CREATE (j)-[:REQUIRES {pos: pos}]->(a)
}
CALL (j, row) {
  UNWIND range(0, size(row.outlist) - 1) AS pos
  MATCH (o) WHERE elementId(o) = row.outlist[pos]
  CREATE (j)-[:UNLESS {pos: pos}]->(o)
}

// name: write_belief_labels
// Sets each named belief's truth labels and depth exactly as given (verify --repair); returns `moved`: [id, was IN, is IN] of those whose IN-ness changed, in one record.
// defines: nothing (labels)
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
WITH b, row, b:In AS was_in
REMOVE b:In:Out:Undetermined
SET b.depth = row.depth
FOREACH (_ IN CASE WHEN row.truth = 'IN' THEN [1] ELSE [] END | SET b:In)
FOREACH (_ IN CASE WHEN row.truth <> 'IN' THEN [1] ELSE [] END | SET b:Out)
FOREACH (_ IN CASE WHEN row.truth = 'UNDETERMINED' THEN [1] ELSE [] END | SET b:Undetermined)
WITH b, was_in, row.truth = 'IN' AS now_in
RETURN [x IN collect([b.id, was_in, now_in]) WHERE x[1] <> x[2]] AS moved
