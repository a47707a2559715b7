// name: contradictions
// Nogoods recorded by review of meaning (dedup and contradictions), with the run and round that found them.
//
// No parameters.
//
// Each is a pair of beliefs a model judged cannot both hold; the engine retracted the least
// entrenched assumption under them. Rows (newest first): nogood, members (each with its truth
// now), stage (dedup or contradictions), run, model, round, discovered, resolution.
MATCH (n:Nogood)
WHERE n.found_by IS NOT NULL
OPTIONAL MATCH (run:Run {id: n.run_id})
RETURN n.id AS nogood,
       COLLECT {
         MATCH (n)-[r:MEMBER]->(m)
         RETURN m.id + ' (' + CASE WHEN m:Missing THEN 'MISSING' WHEN m:In THEN 'IN'
                                   WHEN m:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END + ')'
         ORDER BY r.pos
       } AS members,
       n.found_by AS stage, n.run_id AS run, run.model AS model, n.round AS round,
       n.discovered AS discovered, n.resolution AS resolution
ORDER BY discovered DESC, nogood
