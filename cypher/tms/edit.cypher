// The editing verbs: gates (supersede, challenge, defend), SUPERSEDED_BY links,
// justification removal, metadata. None of these computes labels.

// name: gate_target
// A belief's justifications in order: their seqs, and which of them are gates.
MATCH (b:Belief {id: $id})
RETURN COLLECT { MATCH (b)<-[:SUPPORTS]-(j:Justification) RETURN j.seq ORDER BY j.seq } AS seqs,
       COLLECT { MATCH (b)<-[:SUPPORTS]-(j:Justification)
                 RETURN coalesce(j.gate, false) ORDER BY j.seq } AS gates

// name: create_gate_justification
// Gives a premise its gate justification (flagged `gate`, an outlist only, at $seq); returns nothing.
// defines: belief $id
MATCH (b:Belief {id: $id})
CREATE (:Justification {kind: 'SL', label: '', seq: $seq, gate: true})-[:SUPPORTS]->(b)

// name: append_unless
// Appends belief $gate to the outlist of the belief's justifications with the given seqs (where not there already), each edge marked `gate` so that removing the gate leaves an outlist member the justification had of its own; returns how many were gated.
// defines: belief $id
MATCH (b:Belief {id: $id})<-[:SUPPORTS]-(j:Justification)
WHERE j.seq IN $seqs
MATCH (g:Belief {id: $gate})
WHERE NOT EXISTS { (j)-[:UNLESS]->(g) }
CALL (j) { OPTIONAL MATCH (j)-[r:UNLESS]->() RETURN coalesce(max(r.pos), -1) + 1 AS pos }
CREATE (j)-[:UNLESS {pos: pos, gate: true}]->(g)
RETURN count(*) AS gated

// name: remove_unless
// Removes the edges append_unless made from the belief's justifications to belief $gate (every edge to it when none is marked: a graph imported from a file, which keeps no marks; an absent mark is false, never null), and deletes a gate justification left with no outlist; returns how many edges went.
// defines: belief $id
MATCH (:Belief {id: $id})<-[:SUPPORTS]-(j:Justification)-[r:UNLESS]->(:Belief {id: $gate})
WITH collect([j, r]) AS edges
WITH edges, any(e IN edges WHERE coalesce(e[1].gate, false)) AS marked
UNWIND edges AS e
WITH e[0] AS j, e[1] AS r, marked
WHERE coalesce(r.gate, false) OR NOT marked
DELETE r
WITH j, count(*) AS n
CALL (j) {
  WITH j WHERE coalesce(j.gate, false) AND NOT EXISTS { (j)-[:UNLESS]->() }
  DETACH DELETE j
}
RETURN sum(n) AS removed

// name: remove_justification
// Deletes the belief's justification at 1-based $position in its order; returns how many went.
// defines: belief $id
MATCH (:Belief {id: $id})<-[:SUPPORTS]-(j:Justification)
WITH j ORDER BY j.seq
SKIP $position - 1 LIMIT 1
DETACH DELETE j
RETURN count(*) AS removed

// name: record_supersede
// The (OLD)-[:SUPERSEDED_BY]->(NEW) link holding what undo needs; returns nothing.
// defines: supersession $old
MATCH (o:Belief {id: $old}), (n:Belief {id: $new})
CREATE (o)-[s:SUPERSEDED_BY]->(n)
SET s = $props

// name: supersede_record
// The SUPERSEDED_BY link leaving belief $old: the new belief's id and the link's properties.
MATCH (:Belief {id: $old})-[s:SUPERSEDED_BY]->(n:Belief)
RETURN n.id AS new, properties(s) AS props

// name: rewire_antecedents
// Moves every REQUIRES edge to belief $old of the justifications of the beliefs $owners onto belief $new (same position); one record, `rewired`: [belief id, justification seq, 'REQUIRES', pos] of each.
// defines: belief $owners
MATCH (m:Belief {id: $old}), (k:Belief {id: $new})
UNWIND $owners AS oid
MATCH (owner:Belief {id: oid})<-[:SUPPORTS]-(j:Justification)-[r:REQUIRES]->(m)
WITH k, owner, j, r, r.pos AS pos
CREATE (j)-[:REQUIRES {pos: pos}]->(k)
DELETE r
RETURN collect([owner.id, j.seq, 'REQUIRES', pos]) AS rewired

// name: all_supersessions
// Every SUPERSEDED_BY link: the old and new ids and the link's properties, by old id.
MATCH (o:Belief)-[s:SUPERSEDED_BY]->(n:Belief)
RETURN o.id AS old, n.id AS new, properties(s) AS props
ORDER BY old

// name: delete_supersede
// Deletes the SUPERSEDED_BY link leaving belief $old; returns nothing.
// defines: supersession $old
MATCH (:Belief {id: $old})-[s:SUPERSEDED_BY]->()
DELETE s

// name: supersede_links
// What supersedes the belief, and what it supersedes (ids).
MATCH (b:Belief {id: $id})
RETURN [(b)-[:SUPERSEDED_BY]->(n) | n.id] AS by, [(b)<-[:SUPERSEDED_BY]-(o) | o.id] AS supersedes

// name: set_metadata
// Replaces a belief's metadata (JSON text) and its copy of the metadata's access tags (null: none), and stamps updated_at; returns its id.
// defines: belief $id
MATCH (b:Belief {id: $id})
SET b.metadata = $metadata, b.access_tags = $access_tags, b.updated_at = $at
RETURN b.id AS id

// name: set_fields
// Sets the given fields of a belief ($fields: a map of text, source, source_url, source_hash, date) and stamps updated_at (a new text clears the model of an embedding computed from another: cypher/embedding/upkeep.cypher); returns its id.
// defines: belief $id
MATCH (b:Belief {id: $id})
SET b += $fields, b.updated_at = $at
SET b.embedding_model = CASE WHEN b.embedding_text = coalesce(b.text, '') THEN b.embedding_model END
RETURN b.id AS id

// name: copy_source_link
// Gives belief $new the FROM edge (with its lines) belief $old has, if any; returns nothing.
// defines: belief $new
MATCH (:Belief {id: $old})-[f:FROM]->(s:Source)
MATCH (n:Belief {id: $new})
CREATE (n)-[:FROM {lines: f.lines}]->(s)

// name: delete_belief
// Deletes a belief and its justifications; returns how many beliefs went.
// defines: belief $id
MATCH (b:Belief {id: $id})
OPTIONAL MATCH (b)<-[:SUPPORTS]-(j:Justification)
WITH b, collect(j) AS js
FOREACH (j IN js | DETACH DELETE j)
DETACH DELETE b
RETURN count(*) AS deleted

// name: mark_labels
// Adds the given marker labels (a closed set, checked by the caller) to a belief; returns nothing.
// defines: belief $id
MATCH (b:Belief {id: $id})
SET b:$($labels)
