// name: gated
// Gated beliefs and what gates them: every justification with an outlist, whether its gate is open, and the IN beliefs that close it.
//
// No parameters.
//
// A gated justification holds only while every belief in its outlist (`unless`) is OUT.
// Rows: belief, truth, seq (which of its justifications), antecedents, unless, gate (open:
// every outlist member OUT; closed: one is IN; undetermined: none IN but one UNDETERMINED),
// closed_by (the outlist members that are IN).
MATCH (b:Belief)<-[:SUPPORTS]-(j:Justification)
WHERE EXISTS { (j)-[:UNLESS]->() }
RETURN b.id AS belief,
       CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END AS truth,
       j.seq AS seq,
       COLLECT { MATCH (j)-[r:REQUIRES]->(a) RETURN a.id ORDER BY r.pos } AS antecedents,
       COLLECT { MATCH (j)-[r:UNLESS]->(o) RETURN o.id ORDER BY r.pos } AS unless,
       CASE WHEN EXISTS { (j)-[:UNLESS]->(:In) } THEN 'closed'
            WHEN EXISTS { (j)-[:UNLESS]->(:Undetermined) } THEN 'undetermined'
            ELSE 'open' END AS gate,
       COLLECT { MATCH (j)-[r:UNLESS]->(o:In) RETURN o.id ORDER BY r.pos } AS closed_by
ORDER BY belief, seq
