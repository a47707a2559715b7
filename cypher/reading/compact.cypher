// Reading the memory: what `compact` and `ask` read, each section bounded in Cypher (never
// the whole network in Python). Every query returns ONE record with the rows collected (the
// driver reads each record separately), and `total`, how many rows the whole section has,
// so the footer can say how many were left out. `$scope` is null (the whole network) or a
// list of belief ids (--topic, --around). A row is [id, text, truth, depth, note].

// name: compact_nogoods
// One record: `total` nogoods in scope and `rows`, [id, members joined, state (holds | resolved | open), found_by, resolution] of the first $limit, holding first, then newest.
MATCH (n:Nogood)
WHERE $scope IS NULL OR EXISTS { (n)-[:MEMBER]->(m) WHERE m.id IN $scope }
WITH n,
     COLLECT { MATCH (n)-[r:MEMBER]->(m) RETURN m.id ORDER BY r.pos } AS members,
     NOT EXISTS { (n)-[:MEMBER]->(m) WHERE NOT m:In } AS holds
WITH n, members, holds
ORDER BY CASE WHEN holds THEN 0 ELSE 1 END, coalesce(n.discovered, '') DESC, n.id
WITH collect([n.id, members, CASE WHEN holds THEN 'holds'
                                   WHEN coalesce(n.resolution, '') <> '' THEN 'resolved'
                                   ELSE 'open' END,
              coalesce(n.found_by, ''), coalesce(n.resolution, '')]) AS found
RETURN size(found) AS total, found[..$limit] AS rows

// name: compact_change_log
// One record: `present` (the change log of (:Change) nodes exists), `total` beliefs its last 1000 entries record going OUT and still OUT, `rows` [id, text, 'OUT', depth, why] of the latest $limit, newest first.
OPTIONAL MATCH (c:Change)
WITH count(c) > 0 AS present
CALL (present) {
  WITH present WHERE present
  MATCH (c:Change)
  WHERE size(coalesce(c.went_out, [])) > 0
  WITH c ORDER BY c.seq DESC LIMIT 1000
  UNWIND c.went_out AS bid
  WITH bid, c ORDER BY coalesce(c.seq, 0) DESC, coalesce(c.at, '') DESC
  WITH bid, head(collect(c)) AS c
  MATCH (b:Belief:Out {id: bid})
  WHERE $scope IS NULL OR b.id IN $scope
  WITH b, c ORDER BY coalesce(c.seq, 0) DESC, coalesce(c.at, '') DESC, b.id
  RETURN collect([b.id, b.text, 'OUT', b.depth,
                  trim(coalesce(c.op, 'change') + ' ' + left(coalesce(toString(c.at), ''), 10) +
                       CASE WHEN coalesce(c.actor, '') <> '' THEN ' by ' + c.actor ELSE '' END +
                       CASE WHEN coalesce(c.reason, '') <> '' THEN ': ' + c.reason ELSE '' END)
                 ]) AS found
  UNION
  WITH present WHERE NOT present
  RETURN [] AS found
}
RETURN present, size(found) AS total, found[..$limit] AS rows

// name: compact_retracted
// One record: `total` retracted beliefs in scope and `rows` [id, text, 'OUT', depth, why] of the latest $limit, newest retraction first (the change log's stand-in).
MATCH (b:Belief:Out)
WHERE b.retracted AND ($scope IS NULL OR b.id IN $scope)
WITH b ORDER BY coalesce(b.retracted_at, '') DESC, b.id
WITH collect([b.id, b.text, 'OUT', b.depth,
              trim('retracted ' + left(coalesce(b.retracted_at, ''), 10) +
                   CASE WHEN coalesce(b.retract_reason, '') <> '' THEN ': ' + b.retract_reason
                        ELSE '' END)]) AS found
RETURN size(found) AS total, found[..$limit] AS rows

// name: compact_gated
// One record: `total` OUT beliefs in scope held back only by a closed gate (a justification whose antecedents are all IN, with IN outlist members none of which is a defeater or a belief that supersedes it), `rows` [id, text, 'OUT', depth, the closing ids joined] of the first $limit, deepest first.
MATCH (b:Belief:Out)<-[:SUPPORTS]-(j:Justification)
WHERE NOT coalesce(b.retracted, false) AND ($scope IS NULL OR b.id IN $scope)
  AND NOT EXISTS { (j)-[:REQUIRES]->(a) WHERE NOT a:In }
  AND EXISTS { (j)-[:UNLESS]->(:In) }
  AND NOT EXISTS { (j)-[:UNLESS]->(g:In) WHERE g:Defeater OR EXISTS { (b)-[:SUPERSEDED_BY]->(g) } }
WITH b, collect(DISTINCT j) AS js
WITH b, COLLECT { UNWIND js AS j MATCH (j)-[:UNLESS]->(g:In) WHERE NOT g:Defeater
                  RETURN DISTINCT g.id AS g ORDER BY g } AS gates
ORDER BY coalesce(b.depth, -1) DESC, b.id
WITH collect([b.id, b.text, 'OUT', b.depth, 'closed by ' + reduce(s = '', g IN gates |
              s + CASE WHEN s = '' THEN '' ELSE ', ' END + g)]) AS found
RETURN size(found) AS total, found[..$limit] AS rows

// name: compact_premises
// One record: `total` IN premises in scope (review's defeaters left out) and `rows` [id, text, 'IN', depth, ''] of the $limit with the most direct dependents (ties by id): the pool whose transitive impact is then counted.
MATCH (b:Belief:In)
WHERE NOT b:Defeater AND NOT EXISTS { (b)<-[:SUPPORTS]-(k:Justification) WHERE NOT coalesce(k.gate, false) }
  AND ($scope IS NULL OR b.id IN $scope)
WITH b, COUNT { (b)<-[:REQUIRES]-() } AS direct
ORDER BY direct DESC, b.id
WITH collect([b.id, b.text, 'IN', b.depth, '']) AS found
RETURN size(found) AS total, found[..$limit] AS rows

// name: compact_deepest
// One record: `total` IN derived beliefs in scope (depth >= 1) and `rows` [id, text, 'IN', depth, ''] of the $limit deepest, ties by id.
MATCH (b:Belief:In)
WHERE b.depth >= 1 AND ($scope IS NULL OR b.id IN $scope)
WITH b ORDER BY b.depth DESC, b.id
WITH collect([b.id, b.text, 'IN', b.depth, '']) AS found
RETURN size(found) AS total, found[..$limit] AS rows

// name: compact_defeated
// One record: `total` beliefs in scope with a justification review defeated or a person challenged (an IN defeater or challenge in its outlist; a defence answering a challenge counts too) and `rows` [id, text, truth, depth, the finding] of the first $limit, OUT ones first, then deepest.
MATCH (b:Belief)<-[:SUPPORTS]-(:Justification)-[:UNLESS]->(d:Defeater:In)
WHERE $scope IS NULL OR b.id IN $scope
WITH b, min(d.id) AS defeater
MATCH (d:Belief {id: defeater})
WITH b, d ORDER BY CASE WHEN b:In THEN 1 ELSE 0 END, coalesce(b.depth, -1) DESC, b.id
WITH collect([b.id, b.text,
              CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
              b.depth, CASE WHEN d:Challenge THEN 'challenged: '
                            WHEN d:Defence THEN 'answered by a defence: '
                            ELSE 'defeated by review: ' END + d.text]) AS found
RETURN size(found) AS total, found[..$limit] AS rows

// name: compact_summaries
// One record, `summaries`: [summary id, text, depth, [covered ids]] of every IN summary belief (:Summary) whose cover meets the scope.
MATCH (s:Summary:In)<-[:SUPPORTS]-(:Justification)-[:REQUIRES]->(c:Belief)
WITH s, collect(DISTINCT c.id) AS covered
WHERE $scope IS NULL OR s.id IN $scope OR any(c IN covered WHERE c IN $scope)
WITH s, covered ORDER BY s.id
RETURN collect([s.id, s.text, s.depth, covered]) AS summaries

// name: compact_counts
// One record: beliefs, IN, OUT, premises and nogoods in the whole network (the heading).
CALL () { MATCH (b:Belief) RETURN count(b) AS beliefs }
CALL () { MATCH (b:Belief:In) RETURN count(b) AS in_count }
CALL () { MATCH (n:Nogood) RETURN count(n) AS nogoods }
RETURN beliefs, in_count, beliefs - in_count AS out_count, nogoods

// name: reading_elements
// One record, `rows`: [id, element id] of each belief of $ids that exists (where the impact waves start).
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN collect([bid, elementId(b)]) AS rows

// name: reading_dependents_wave
// One record, `rows`: [element id, [element ids of the beliefs with a justification naming it as an antecedent]] for each belief of $elements (one wave of the impact count).
UNWIND $elements AS e
MATCH (b:Belief) WHERE elementId(b) = e
RETURN collect([e, COLLECT { MATCH (b)<-[:REQUIRES]-(:Justification)-[:SUPPORTS]->(d:Belief)
                             RETURN DISTINCT elementId(d) }]) AS rows

// name: reading_around_scope
// One record, `ids`: the belief $id and every belief within $steps justification steps of it, upstream (what it rests on) and downstream (what rests on it); `found`: whether $id exists.
OPTIONAL MATCH (root:Belief {id: $id})
OPTIONAL CALL (root) {
  WITH root WHERE root IS NOT NULL
  MATCH p = ANY SHORTEST (root) ((:Belief)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->()){0,25} (b:Belief)
  WHERE length(p) <= 2 * $steps
  RETURN b.id AS bid
  UNION
  WITH root WHERE root IS NOT NULL
  MATCH p = ANY SHORTEST (root) (()<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(:Belief)){0,25} (b:Belief)
  WHERE length(p) <= 2 * $steps
  RETURN b.id AS bid
}
RETURN root IS NOT NULL AS found, collect(DISTINCT bid) AS ids

// name: mark_summary
// Marks the belief $id a summary (:Summary); returns `found`.
// defines: belief $id
MATCH (b:Belief {id: $id})
SET b:Summary
RETURN count(b) > 0 AS found

// name: visible_network
// One record for a client that sees only the access tags $visible_to (engine/agents/visibility.py): `ids` of the beliefs whose effective tags are all in it (untagged ones included), `in_count` how many of them are IN, `nogoods` how many nogoods have only such members.
CALL () {
  MATCH (b:Belief)
  WHERE all(t IN coalesce(b.effective_tags, []) WHERE t IN $visible_to)
  RETURN collect(b.id) AS ids, count(CASE WHEN b:In THEN 1 END) AS in_count
}
CALL () {
  MATCH (n:Nogood)
  WHERE NOT EXISTS { (n)-[:MEMBER]->(m)
                     WHERE any(t IN coalesce(m.effective_tags, []) WHERE NOT t IN $visible_to) }
  RETURN count(n) AS nogoods
}
RETURN ids, in_count, nogoods

// name: reading_visible_elements
// One record, `elements`: those of the beliefs with element ids $elements whose effective tags are all in $visible_to (what an impact count may count for such a client).
UNWIND $elements AS e
MATCH (b:Belief) WHERE elementId(b) = e
  AND all(t IN coalesce(b.effective_tags, []) WHERE t IN $visible_to)
RETURN collect(e) AS elements
