// Health: how true the memory is (engine/reading/health.py). Each query reads the whole
// graph once and returns counts and short lists, so `health` stays within seconds at 200k
// beliefs. When a belief was last reviewed: its review stamp (review's `reviewed_at`), else
// the `reviewed_at` an imported file gave it, kept in `extra` (a JSON object written with
// sorted keys and ", " / ": " separators by adapters/neo4j/records.py, so a top-level
// "reviewed_at": "..." reads as written; a timestamp holds no quote).

// name: health_review
// One record: `derived` (IN beliefs with a justification that is not a gate), `current`, `never` (no review), `outdated` (reviewed before its own last update or that of a belief its justifications name, review's defeaters aside), and `pool`: [id, 'never' or 'outdated', direct dependents] of the first $pool not current by direct dependents (most first, then id).
MATCH (b:Belief:In)
WHERE EXISTS { (b)<-[:SUPPORTS]-(j:Justification) WHERE j.gate IS NULL }
WITH b, coalesce(b.reviewed_at, '') AS stamped,
     CASE WHEN b.extra CONTAINS '"reviewed_at": "'
          THEN split(split(b.extra, '"reviewed_at": "')[1], '"')[0] ELSE '' END AS filed
WITH b, CASE WHEN stamped >= filed THEN stamped ELSE filed END AS reviewed
WITH b, CASE
  WHEN reviewed = '' THEN 'never'
  WHEN coalesce(b.updated_at, '') > reviewed
       OR EXISTS { MATCH (b)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->(n:Belief)
                   WHERE NOT n:Defeater AND coalesce(n.updated_at, '') > reviewed }
    THEN 'outdated'
  ELSE 'current' END AS state
WITH b, state,
     CASE WHEN state = 'current' THEN -1
          ELSE COUNT { (b)<-[:REQUIRES]-(:Justification) } END AS direct
ORDER BY direct DESC, b.id
WITH count(b) AS derived,
     sum(CASE state WHEN 'current' THEN 1 ELSE 0 END) AS current,
     sum(CASE state WHEN 'never' THEN 1 ELSE 0 END) AS never,
     sum(CASE state WHEN 'outdated' THEN 1 ELSE 0 END) AS outdated,
     collect(CASE WHEN state <> 'current' THEN [b.id, state, direct] END) AS open
RETURN derived, current, never, outdated, open[..$pool] AS pool

// name: health_out_support
// One record, `rows`: [id, [[the antecedent ids not IN] of each justification (gates aside) whose outlist has no IN member]] of every OUT belief, neither retracted nor undetermined, that has such a justification.
MATCH (b:Belief:Out)
WHERE NOT b:Undetermined AND NOT coalesce(b.retracted, false)
WITH b, COLLECT {
  MATCH (b)<-[:SUPPORTS]-(j:Justification)
  WHERE j.gate IS NULL AND NOT EXISTS { (j)-[:UNLESS]->(o) WHERE o:In }
  RETURN COLLECT { MATCH (j)-[:REQUIRES]->(a) WHERE NOT a:In RETURN DISTINCT a.id }
} AS open
WHERE size(open) > 0
RETURN collect([b.id, open]) AS rows

// name: health_loose
// One record: `total`, the premises (no justification but gates) nothing rests on (no justification names them) and nothing pins (no source named, no FROM edge), markers (defeaters, challenges, defences) aside; `ids`, the first $limit by id.
MATCH (b:Belief)
WHERE NOT b:Defeater
  AND coalesce(b.source, '') = ''
  AND NOT EXISTS { (b)<-[:SUPPORTS]-(j:Justification) WHERE j.gate IS NULL }
  AND NOT EXISTS { (b)<-[:REQUIRES|UNLESS]-(:Justification) }
  AND NOT EXISTS { (b)-[:FROM]->(:Source) }
WITH b ORDER BY b.id
WITH collect(b.id) AS ids
RETURN size(ids) AS total, ids[..$limit] AS ids

// name: health_contradictions
// One record: `nogoods`, how many there are; `holding`, those every member of which is IN (left unresolved); `out_by_nogood`, the ids of the OUT beliefs retracted by a nogood's resolution, by id.
CALL () {
  OPTIONAL MATCH (n:Nogood)
  RETURN count(n) AS nogoods,
         count(CASE WHEN n IS NOT NULL AND NOT EXISTS { (n)-[:MEMBER]->(m) WHERE NOT m:In }
                    THEN 1 END) AS holding
}
CALL () {
  OPTIONAL MATCH (b:Belief:Out)
  WHERE coalesce(b.retracted, false) AND b.retract_reason STARTS WITH 'nogood '
  WITH b ORDER BY b.id
  RETURN [x IN collect(b.id) WHERE x IS NOT NULL] AS out_by_nogood
}
RETURN nogoods, holding, out_by_nogood

// name: review_stamps_of
// One record, `rows`: [id, when it was last reviewed] of each belief of $ids with a review stamp or an imported reviewed_at, the later of the two.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
WITH b, coalesce(b.reviewed_at, '') AS stamped,
     CASE WHEN b.extra CONTAINS '"reviewed_at": "'
          THEN split(split(b.extra, '"reviewed_at": "')[1], '"')[0] ELSE '' END AS filed
WITH b, CASE WHEN stamped >= filed THEN stamped ELSE filed END AS reviewed
WHERE reviewed <> ''
RETURN collect([b.id, reviewed]) AS rows

// name: review_stamps_all
// One record, `rows`: [id, when it was last reviewed] of every belief with a review stamp or an imported reviewed_at, the later of the two.
MATCH (b:Belief)
WHERE b.reviewed_at IS NOT NULL OR b.extra CONTAINS '"reviewed_at": "'
WITH b, coalesce(b.reviewed_at, '') AS stamped,
     CASE WHEN b.extra CONTAINS '"reviewed_at": "'
          THEN split(split(b.extra, '"reviewed_at": "')[1], '"')[0] ELSE '' END AS filed
WITH b, CASE WHEN stamped >= filed THEN stamped ELSE filed END AS reviewed
WHERE reviewed <> ''
RETURN collect([b.id, reviewed]) AS rows
