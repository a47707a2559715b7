// Premise review: IN premises with a source, their pins, the stamps of their reviews, the
// re-pin of a confirmed one, and the REVIEWED edges from a round to the premises it judged.

// name: premise_review_candidates
// Every IN premise (no justification but a gate) that names a source, not a review defeater: [id, text, source path (the FROM edge's Source, else the belief's source), source hash, FROM lines or null, metadata JSON text, premise review hash, premise reviewed at] rows by id, collected in one record; only the beliefs of $ids when $ids is not null.
MATCH (b:In)
WHERE ($ids IS NULL OR b.id IN $ids)
  AND NOT b:Defeater
  AND NOT EXISTS { (b)<-[:SUPPORTS]-(j:Justification) WHERE NOT coalesce(j.gate, false) }
OPTIONAL MATCH (b)-[f:FROM]->(s:Source)
WITH b, f, s
WHERE coalesce(s.path, b.source, '') <> ''
WITH b, f, s ORDER BY b.id
RETURN collect([b.id, b.text, coalesce(s.path, b.source), coalesce(b.source_hash, ''),
                f.lines, coalesce(b.metadata, '{}'), coalesce(b.premise_review_sha256, ''),
                coalesce(b.premise_reviewed_at, '')]) AS rows

// name: premise_review_repin
// Each of $rows ({id, source, source_hash, size, metadata, lines, at}): the belief's source, hash and metadata set, its FROM edge replaced by one with the new lines to the Source of that path (created, with no chunk forged, when there is none); returns `pinned`.
// defines: belief $rows.id; source $rows.source
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
MERGE (s:Source {path: row.source})
  ON CREATE SET s.sha256 = row.source_hash, s.size = row.size, s.forged_at = '', s.chunks = []
WITH b, s, row
CALL (b) {
  MATCH (b)-[old:FROM]->(:Source)
  DELETE old
}
SET b.source = row.source, b.source_hash = row.source_hash, b.metadata = row.metadata,
    b.updated_at = row.at
CREATE (b)-[:FROM {lines: row.lines}]->(s)
RETURN count(b) AS pinned

// name: premise_review_stamp
// Records on each belief of $rows ({id, at, sha256, run_id, verified}) its premise review (and verified_at when confirmed); returns how many beliefs were found.
// defines: nothing (review stamps)
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
SET b.premise_reviewed_at = row.at, b.premise_review_sha256 = row.sha256,
    b.premise_review_run = row.run_id,
    b.verified_at = CASE WHEN row.verified THEN row.at ELSE b.verified_at END
RETURN count(b) AS found

// name: premise_review_record_verdicts
// Creates a REVIEWED edge from the round to each judged premise of $rows ({belief_id, fields}) with the verdict's fields; returns the edges made (no row when the round does not exist).
// defines: nothing (a round's verdicts)
MATCH (r:Round {run_id: $run_id, n: $n})
CALL (r) {
  UNWIND $rows AS row
  MATCH (b:Belief {id: row.belief_id})
  CREATE (r)-[e:REVIEWED]->(b)
  SET e += row.fields
  RETURN count(e) AS edges
}
RETURN edges
