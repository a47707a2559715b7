// name: beliefs_by_id
// The named beliefs with their properties, truth, and justifications in written order.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN b {
  .id, .text, .source, .source_url, .source_hash, .date, .metadata, .extra, .created_at,
  .updated_at, .retracted, .asserted, .retracted_at, .retract_reason, .depth,
  .effective_tags,
  truth: CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  labels: labels(b),
  justifications: COLLECT {
    MATCH (b)<-[:SUPPORTS]-(j:Justification)
    RETURN j {
      .kind, .label, .seq, .gate,
      antecedents: COLLECT { MATCH (j)-[r:REQUIRES]->(a) RETURN a.id ORDER BY r.pos },
      outlist: COLLECT { MATCH (j)-[r:UNLESS]->(o) RETURN o.id ORDER BY r.pos }
    } ORDER BY j.seq
  }
} AS belief

// name: belief_with_dependents
// One belief as beliefs_by_id gives it, with the ids of the beliefs that have a justification naming it (show reads both in one statement), and what the rest of show would read next, so a read need not ask again: its element id, the element ids of the beliefs with a justification naming it as an antecedent (the first wave of its impact), what supersedes it and what it supersedes (ids); no row when it does not exist.
MATCH (b:Belief {id: $id})
RETURN b {
  .id, .text, .source, .source_url, .source_hash, .date, .metadata, .extra, .created_at,
  .updated_at, .retracted, .asserted, .retracted_at, .retract_reason, .depth,
  .effective_tags,
  truth: CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  labels: labels(b),
  justifications: COLLECT {
    MATCH (b)<-[:SUPPORTS]-(j:Justification)
    RETURN j {
      .kind, .label, .seq, .gate,
      antecedents: COLLECT { MATCH (j)-[r:REQUIRES]->(a) RETURN a.id ORDER BY r.pos },
      outlist: COLLECT { MATCH (j)-[r:UNLESS]->(o) RETURN o.id ORDER BY r.pos }
    } ORDER BY j.seq
  }
} AS belief,
COLLECT { MATCH (b)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief) RETURN DISTINCT c.id } AS dependents,
elementId(b) AS element,
COLLECT { MATCH (b)<-[:REQUIRES]-(:Justification)-[:SUPPORTS]->(d:Belief) RETURN DISTINCT elementId(d) } AS wave,
[(b)-[:SUPERSEDED_BY]->(n) | n.id] AS superseded_by, [(b)<-[:SUPERSEDED_BY]-(o) | o.id] AS supersedes

// name: belief_count
// How many beliefs there are (Neo4j's count store).
MATCH (b:Belief) RETURN count(b) AS beliefs

// name: belief_rows_page
// Up to $limit beliefs with ids after $after, by id (the unique index gives the order and stops at the limit), in one record of lists (export and read_network, page by page): [id, text, source, source_url, source_hash, date, metadata, extra, created_at, updated_at, retracted, asserted, retracted_at, retract_reason, depth, effective_tags, truth, justifications], a justification being [seq, kind, label, gate, [[pos, antecedent id]...], [[pos, outlist id]...]].
// Lists, not maps: the driver's cost is per record and per map key.
MATCH (b:Belief)
WHERE b.id > $after
WITH b ORDER BY b.id LIMIT $limit
RETURN collect([b.id, b.text, b.source, b.source_url,
  b.source_hash, b.date, b.metadata, b.extra, b.created_at, b.updated_at, b.retracted,
  b.asserted, b.retracted_at, b.retract_reason, b.depth, b.effective_tags,
  CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  [(b)<-[:SUPPORTS]-(j:Justification) | [j.seq, j.kind, j.label, j.gate,
     [(j)-[r:REQUIRES]->(a) | [r.pos, a.id]], [(j)-[r:UNLESS]->(o) | [r.pos, o.id]]]]]) AS rows

// name: labelling_page
// Up to $limit beliefs with ids after $after, by id (the unique index gives the order and stops at the limit), as verify compares them, in one record of parallel lists: ids; flags (1 :In, 2 :Out, 4 :Undetermined, 8 retracted, 16 asserted: engine/tms/stored_labels.py); depths (-1: none); odd: [id, labels] of beliefs without exactly one truth label; tagged: [id, own access tags, effective tags] of beliefs carrying either; justifications: per belief, [[antecedent ids], [outlist ids], gate] (no texts, no metadata).
MATCH (b:Belief)
WHERE b.id > $after
WITH b ORDER BY b.id LIMIT $limit
RETURN collect(b.id) AS ids,
  collect(CASE WHEN b:In THEN 1 ELSE 0 END + CASE WHEN b:Out THEN 2 ELSE 0 END
          + CASE WHEN b:Undetermined THEN 4 ELSE 0 END + CASE WHEN b.retracted THEN 8 ELSE 0 END
          + CASE WHEN b.asserted THEN 16 ELSE 0 END) AS flags,
  collect(coalesce(b.depth, -1)) AS depths,
  collect(CASE WHEN (b:In) = (b:Out) OR (b:Undetermined AND NOT b:Out)
               THEN [b.id, labels(b)] END) AS odd,
  collect(CASE WHEN b.access_tags IS NOT NULL OR b.effective_tags IS NOT NULL
               THEN [b.id, b.access_tags, b.effective_tags] END) AS tagged,
  collect([(b)<-[:SUPPORTS]-(j:Justification) | [[(j)-[:REQUIRES]->(a) | a.id],
                                                 [(j)-[:UNLESS]->(o) | o.id],
                                                 coalesce(j.gate, false)]]) AS justifications

// name: justifications_now
// For each given belief id that exists, is not retracted and has justifications: rows [id, justifications] collected in one record, a justification being [seq, gate, [[position, antecedent id, IN now]...], [[position, outlist id, IN now]...]].
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})<-[:SUPPORTS]-(j:Justification)
WHERE NOT coalesce(b.retracted, false)
WITH bid, collect([coalesce(j.seq, 0), coalesce(j.gate, false),
  [(j)-[r:REQUIRES]->(a) | [r.pos, a.id, a:In]],
  [(j)-[r:UNLESS]->(o) | [r.pos, o.id, o:In]]]) AS js
RETURN collect([bid, js]) AS rows

// name: existing_belief_ids
// The subset of the given ids that name beliefs.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN b.id AS id

// name: status_counts
// Counts of beliefs by truth and kind, nogoods, the largest depth, the undetermined ids, and how many beliefs an open challenge gates.
// Label counts come from Neo4j's count store; the largest depth from the depth index.
CALL () { MATCH (b:Belief) RETURN count(b) AS beliefs }
CALL () { MATCH (b:In) RETURN count(b) AS in_count }
CALL () {
  MATCH (u:Undetermined)
  RETURN count(u) AS undetermined, collect(u.id) AS undetermined_ids
}
CALL () {
  MATCH (b:Belief) WHERE EXISTS { (b)<-[:SUPPORTS]-(j:Justification) WHERE j.gate IS NULL }
  RETURN count(b) AS derived
}
CALL () {
  OPTIONAL MATCH (b:Belief) WHERE b.depth IS NOT NULL
  WITH b ORDER BY b.depth DESC LIMIT 1
  RETURN coalesce(b.depth, 0) AS max_depth
}
CALL () { MATCH (n:Nogood) RETURN count(n) AS nogoods }
CALL () {
  OPTIONAL MATCH (:Challenge:In)<-[:UNLESS]-(:Justification)-[:SUPPORTS]->(b:Belief)
  RETURN count(DISTINCT b) AS challenged
}
RETURN beliefs, in_count, undetermined, derived, max_depth, nogoods, undetermined_ids,
       challenged

// name: list_beliefs
// Beliefs (properties and truth, no justifications) filtered by truth, kind, challenges, supersession, depth, dependents and a justification label containing $label (any case); sorted by $sort (id, depth, impact, updated).
MATCH (b:Belief)
WHERE ($truth IS NULL
       OR ($truth = 'IN' AND b:In)
       OR ($truth = 'OUT' AND b:Out)
       OR ($truth = 'UNDETERMINED' AND b:Undetermined))
  AND ($premises IS NULL
       OR $premises = (NOT EXISTS { (b)<-[:SUPPORTS]-(j:Justification) WHERE j.gate IS NULL }))
  AND (NOT $challenged OR EXISTS { (b)<-[:SUPPORTS]-(:Justification)-[:UNLESS]->(:Challenge:In) })
  AND (NOT $superseded OR EXISTS { (b)-[:SUPERSEDED_BY]->() })
  AND ($min_depth IS NULL OR b.depth >= $min_depth)
  AND ($max_depth IS NULL OR b.depth <= $max_depth)
  AND (NOT $has_dependents OR EXISTS { (b)<-[:REQUIRES|UNLESS]-(:Justification) })
  AND ($label IS NULL OR EXISTS { (b)<-[:SUPPORTS]-(j:Justification)
                                  WHERE toLower(j.label) CONTAINS toLower($label) })
WITH b, CASE $sort WHEN 'impact'
          THEN COUNT { MATCH (b)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief)
                       RETURN DISTINCT c } END AS impact
ORDER BY CASE $sort WHEN 'depth' THEN -coalesce(b.depth, -1) WHEN 'impact' THEN -impact END,
         CASE $sort WHEN 'updated' THEN b.updated_at END DESC, b.id
RETURN b {
  .id, .text, .source, .source_url, .source_hash, .date, .metadata, .extra, .created_at,
  .updated_at, .retracted, .asserted, .retracted_at, .retract_reason, .depth,
  .effective_tags,
  truth: CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  labels: labels(b),
  justifications: COLLECT {
    MATCH (b)<-[:SUPPORTS]-(j:Justification)
    RETURN j {.kind, .label, .seq, .gate, antecedents: [], outlist: []} ORDER BY j.seq
  }
} AS belief

// name: out_belief_ids
// The ids of every OUT belief (Undetermined ones included), in id order.
MATCH (b:Out)
RETURN b.id AS id
ORDER BY id

// name: antecedent_step
// For each given belief, the ids its justifications name (antecedents and outlists) that are beliefs.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->(a:Belief)
RETURN bid AS id, collect(DISTINCT a.id) AS named

// name: direct_dependent_counts
// For each given belief, how many beliefs have a justification naming it.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN bid AS id,
       COUNT { MATCH (b)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief) RETURN DISTINCT c } AS dependents

// name: all_nogoods
// Every nogood with its member ids in written order.
MATCH (n:Nogood)
RETURN n.id AS id, n.discovered AS discovered, coalesce(n.resolution, '') AS resolution,
       COLLECT { MATCH (n)-[r:MEMBER]->(m) RETURN m.id ORDER BY r.pos } AS members
ORDER BY n.id

// name: nogoods_holding_with
// Nogoods that have one of the given beliefs as a member and whose members are all IN.
UNWIND $ids AS bid
MATCH (:Belief {id: bid})<-[:MEMBER]-(n:Nogood)
WITH DISTINCT n
WHERE NOT EXISTS { MATCH (n)-[:MEMBER]->(m) WHERE NOT m:In }
RETURN n.id AS id, COLLECT { MATCH (n)-[r:MEMBER]->(m) RETURN m.id ORDER BY r.pos } AS members
ORDER BY n.id

// name: direct_dependents
// The beliefs with a justification naming $id, a belief or an id not added yet (a :Missing placeholder).
CALL () {
  MATCH (a:Belief {id: $id}) RETURN a
  UNION
  MATCH (a:Missing {id: $id}) RETURN a
}
MATCH (a)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief)
RETURN collect(DISTINCT c.id) AS dependents

// name: unresolved_nogoods_holding
// Nogoods recorded unresolved whose members are all IN, with their members and resolution.
MATCH (n:Nogood)
WHERE n.resolution STARTS WITH 'unresolved'
  AND NOT EXISTS { MATCH (n)-[:MEMBER]->(m) WHERE NOT m:In }
RETURN n.id AS id, n.discovered AS discovered, n.resolution AS resolution,
       COLLECT { MATCH (n)-[r:MEMBER]->(m) RETURN m.id ORDER BY r.pos } AS members
ORDER BY n.id

// name: network_info
// The meta and repos sections kept from an imported network file, if any.
OPTIONAL MATCH (n:NetworkInfo {key: 'network'})
RETURN n.meta AS meta, n.repos AS repos

// name: placeholder_ids
// The subset of the given ids that exist as :Missing placeholders (named but not added yet).
UNWIND $ids AS ref
MATCH (m:Missing {id: ref})
RETURN m.id AS id

// name: forward_reference
// Who names a :Missing placeholder (an id named but not added yet): the beliefs whose justifications name it and the nogoods that list it; no row when there is no such placeholder.
MATCH (m:Missing {id: $id})
OPTIONAL MATCH (m)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(b:Belief)
WITH m, collect(DISTINCT b.id) AS named_by
OPTIONAL MATCH (m)<-[:MEMBER]-(n:Nogood)
RETURN named_by, collect(DISTINCT n.id) AS nogoods

// name: node_counts
// How many Belief and Missing nodes exist (from the count store).
CALL () { MATCH (b:Belief) RETURN count(b) AS beliefs }
CALL () { MATCH (m:Missing) RETURN count(m) AS placeholders }
RETURN beliefs, placeholders
