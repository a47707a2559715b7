// name: nogoods
// Nogoods and their members, with each member's truth and whether all are IN (a violation).
//
// No parameters.
//
// A nogood records beliefs that must not all be IN together; the engine retracts one when a
// change makes them all IN. Rows: nogood, members (in written order, each with its truth:
// IN, OUT, UNDETERMINED, or MISSING for an id no belief has), violated (every member IN: should
// never be true; run `python -m engine verify`), discovered, resolution.
MATCH (n:Nogood)
RETURN n.id AS nogood,
       COLLECT {
         MATCH (n)-[r:MEMBER]->(m)
         RETURN m.id + ' (' + CASE WHEN m:Missing THEN 'MISSING' WHEN m:In THEN 'IN'
                                   WHEN m:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END + ')'
         ORDER BY r.pos
       } AS members,
       NOT EXISTS { (n)-[:MEMBER]->(m) WHERE NOT m:In } AS violated,
       n.discovered AS discovered, n.resolution AS resolution
ORDER BY nogood
