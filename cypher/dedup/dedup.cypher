// Dedup and contradictions: candidate reads, stored pair verdicts, merges and their undo.
// Verdicts are (:PairVerdict {key, stage, a, b, sha_a, sha_b, verdict, run_id, round,
// comment}); a merge is (:Belief)-[:DUPLICATE_OF {rewired (JSON text), was_* pins, run_id,
// round, at}]->(:Belief).

// name: in_belief_texts
// One record, `pool`: [id, text] of every IN belief, by id.
MATCH (b:Belief:In)
WITH b ORDER BY b.id
RETURN collect([b.id, b.text]) AS pool

// name: nearest_beliefs
// One record, `pairs`: [id, neighbour id, index score] for each of $ids with an embedding and its up to $k nearest IN beliefs by the belief_embedding index whose score (cosine mapped to [0, 1]) is at least $min_score.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
WHERE b.embedding IS NOT NULL
CALL db.index.vector.queryNodes('belief_embedding', $k, b.embedding) YIELD node, score
WITH b, node, score
WHERE node <> b AND node:In AND score >= $min_score
RETURN collect([b.id, node.id, score]) AS pairs

// name: sibling_groups
// One record, `groups`: for each belief named as an antecedent by 2 to $max_group IN beliefs, the sorted ids of those beliefs.
MATCH (a:Belief)<-[:REQUIRES]-(:Justification)-[:SUPPORTS]->(b:Belief:In)
WITH a, b ORDER BY b.id
WITH a, collect(DISTINCT b.id) AS ids
WHERE size(ids) >= 2 AND size(ids) <= $max_group
RETURN collect(ids) AS groups

// name: pair_verdicts
// One record, `verdicts`: every stored verdict of $stage as [a, b, sha_a, sha_b, verdict, run_id, round, comment].
MATCH (v:PairVerdict {stage: $stage})
RETURN collect([v.a, v.b, v.sha_a, v.sha_b, v.verdict, v.run_id, v.round, v.comment]) AS verdicts

// name: save_pair_verdicts
// Stores each of $rows ({key, stage, a, b, sha_a, sha_b, verdict, run_id, round, comment}), replacing the verdict of the same key, and links it from its round when that exists; returns nothing.
// defines: nothing (a round's verdicts)
UNWIND $rows AS row
MERGE (v:PairVerdict {key: row.key})
SET v += row
WITH v, row
OPTIONAL MATCH (r:Round {run_id: row.run_id, n: row.round})
FOREACH (_ IN CASE WHEN r IS NULL THEN [] ELSE [1] END | MERGE (r)-[:JUDGED]->(v))

// name: rewire_mentions
// Moves every REQUIRES / UNLESS edge to belief $merged, of justifications of beliefs other than $kept, onto $kept (same type and position); one record, `rewired`: [belief id, justification seq, edge type, pos] of each.
// defines: belief via mentions_of_merged
MATCH (m:Belief {id: $merged}), (k:Belief {id: $kept})
MATCH (owner:Belief)<-[:SUPPORTS]-(j:Justification)-[r:REQUIRES|UNLESS]->(m)
WHERE owner <> k
WITH k, owner, j, r, type(r) AS kind, r.pos AS pos
CREATE (j)-[:$(kind) {pos: pos}]->(k)
DELETE r
RETURN collect([owner.id, j.seq, kind, pos]) AS rewired

// name: record_merge
// Creates the DUPLICATE_OF edge from $merged to $kept holding $props, and a MERGED edge from its round when that exists; returns nothing.
// defines: belief $merged
MATCH (m:Belief {id: $merged}), (k:Belief {id: $kept})
CREATE (m)-[d:DUPLICATE_OF]->(k)
SET d = $props
WITH m
OPTIONAL MATCH (r:Round {run_id: $props.run_id, n: $props.round})
FOREACH (_ IN CASE WHEN r IS NULL THEN [] ELSE [1] END | MERGE (r)-[:MERGED]->(m))

// name: merge_record
// The DUPLICATE_OF edge of belief $merged, if any: kept (the kept belief's id) and props (the edge's properties).
MATCH (:Belief {id: $merged})-[d:DUPLICATE_OF]->(k:Belief)
RETURN k.id AS kept, properties(d) AS props

// name: move_back_edges
// Moves each of $rows ({belief, seq, kind, pos}) from belief $kept back to belief $merged; one record, `moved`: how many edges were found and moved.
// defines: belief $rows.belief
MATCH (m:Belief {id: $merged}), (k:Belief {id: $kept})
UNWIND $rows AS row
MATCH (:Belief {id: row.belief})<-[:SUPPORTS]-(j:Justification {seq: row.seq})-[r]->(k)
WHERE type(r) = row.kind AND r.pos = row.pos
CREATE (j)-[:$(row.kind) {pos: row.pos}]->(m)
DELETE r
RETURN count(r) AS moved

// name: restore_merged
// Restores belief $merged's pins and timestamp as they were before the merge ($pins; a null removes the property) and deletes its DUPLICATE_OF edge and MERGED links; returns nothing.
// defines: belief $merged
MATCH (m:Belief {id: $merged})-[d:DUPLICATE_OF]->(:Belief)
SET m.retracted = $pins.retracted, m.asserted = $pins.asserted,
    m.retracted_at = $pins.retracted_at, m.retract_reason = $pins.retract_reason,
    m.updated_at = $pins.updated_at
DELETE d
WITH m
OPTIONAL MATCH (:Round)-[l:MERGED]->(m)
DELETE l

// name: mark_nogood_found
// Records on nogood $id the stage, run and round that found it ($stage, $run_id, $round), and a FOUND edge from the round when that exists; returns nothing.
// defines: nothing (a round's FOUND edge)
MATCH (n:Nogood {id: $id})
SET n.found_by = $stage, n.run_id = $run_id, n.round = $round
WITH n
OPTIONAL MATCH (r:Round {run_id: $run_id, n: $round})
FOREACH (_ IN CASE WHEN r IS NULL THEN [] ELSE [1] END | MERGE (r)-[:FOUND]->(n))
