// name: review_due
// What review would look at next: IN derived beliefs never reviewed, or reviewed before their argument changed, that rest on no derived belief in the same state; shallowest first.
//
// Derived here means held by its justifications (depth 1 or more): premises and beliefs a
// person asserted are not reviewed.
//
// No parameters.
//
// An approximation of `python -m engine.review --dry-run`, which is exact: a review is stale
// here when the belief or a belief its justifications name (review's defeaters aside) was
// updated (updated_at) after it, or it has a justification review never judged. The engine
// compares a hash of the texts instead: it sees edits that leave updated_at alone, and it
// does not count a retraction or assertion (which move updated_at) as a change.
// Rows (shallowest first, then by id): belief, depth, reviewed_at (empty: never), why
// (never reviewed, or stale: what changed), justifications (how many it has).
MATCH (b:In)
WHERE b.depth > 0
WITH b,
     COLLECT { MATCH (b)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->(n:Belief)
               WHERE b.reviewed_at IS NOT NULL AND NOT n:Defeater
                 AND n.updated_at > b.reviewed_at
               RETURN DISTINCT n.id } AS changed,
     COUNT { MATCH (b)<-[:SUPPORTS]-(j:Justification)
             WHERE b.reviewed_at IS NOT NULL AND NOT EXISTS { (:Round)-[:REVIEWED]->(j) } }
       AS unjudged
WITH b, changed, unjudged,
     CASE WHEN b.reviewed_at IS NULL THEN 'never reviewed'
          WHEN b.updated_at > b.reviewed_at THEN 'stale: its claim changed'
          WHEN size(changed) > 0 THEN 'stale: changed ' + reduce(s = '', x IN changed |
               s + CASE WHEN s = '' THEN '' ELSE ', ' END + x)
          WHEN unjudged > 0 THEN 'stale: a justification review never judged'
          ELSE null END AS why
WHERE why IS NOT NULL
  AND NOT EXISTS {
    MATCH (b)<-[:SUPPORTS]-(:Justification)-[:REQUIRES]->(a:In)
    WHERE a <> b AND a.depth > 0
      AND (a.reviewed_at IS NULL OR a.updated_at > a.reviewed_at)
  }
RETURN b.id AS belief, b.depth AS depth, coalesce(b.reviewed_at, '') AS reviewed_at, why,
       COUNT { (b)<-[:SUPPORTS]-(:Justification) } AS justifications
ORDER BY depth, belief
