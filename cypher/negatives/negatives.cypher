// The negatives stage (engine/negatives/): which beliefs state a problem. A judged belief
// keeps its last verdict as properties (negative_kind, '' for none; negative_sha256 of the
// text judged; negative_at; negative_run); each verdict is also a CLASSIFIED edge from the
// round that gave it. Rows come collected in one record.

// name: negative_candidates
// Every IN belief that is not a defeater (challenges, defences, review's and defeat's defeaters state objections, not problems): [id, text, kind, text sha256 judged, judged at, judging run] rows by id, collected in one record; only the beliefs of $ids when $ids is not null.
MATCH (b:In)
WHERE ($ids IS NULL OR b.id IN $ids) AND NOT b:Defeater
WITH b ORDER BY b.id
RETURN collect([b.id, b.text, coalesce(b.negative_kind, ''), coalesce(b.negative_sha256, ''),
                coalesce(b.negative_at, ''), coalesce(b.negative_run, '')]) AS rows

// name: classified_negatives
// The IN beliefs whose last verdict found a problem: [id, text, kind, text sha256 judged, judged at, judging run] rows by id, collected in one record.
MATCH (b:In)
WHERE b.negative_kind IS NOT NULL AND b.negative_kind <> ''
WITH b ORDER BY b.id
RETURN collect([b.id, b.text, b.negative_kind, coalesce(b.negative_sha256, ''),
                coalesce(b.negative_at, ''), coalesce(b.negative_run, '')]) AS rows

// name: stamp_negatives
// Keeps each verdict of $rows on its belief and as a CLASSIFIED edge from round $n of run $run_id; returns `found`, how many beliefs were found, and `round`, whether the round was.
// defines: nothing (the verdict stamps and the CLASSIFIED edges: provenance)
OPTIONAL MATCH (r:Round {run_id: $run_id, n: $n})
WITH r
UNWIND $rows AS row
OPTIONAL MATCH (b:Belief {id: row.id})
FOREACH (_ IN CASE WHEN b IS NOT NULL THEN [1] END |
  SET b.negative_kind = row.kind, b.negative_sha256 = row.sha256, b.negative_at = row.at,
      b.negative_run = $run_id)
FOREACH (_ IN CASE WHEN b IS NOT NULL AND r IS NOT NULL THEN [1] END |
  CREATE (r)-[:CLASSIFIED {negative: row.kind <> '', kind: row.kind, comment: row.comment,
                           at: row.at}]->(b))
RETURN count(b) AS found, r IS NOT NULL AS round
