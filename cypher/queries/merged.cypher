// name: merged
// Every merge dedup made: the merged belief, the kept one, the reason, and the run that merged it.
//
// No parameters.
//
// A merged belief is retracted with reason `duplicate of <kept>`, and every justification that
// named it names the kept belief instead. Rows (newest first): merged, kept, reason, kept_truth
// (now), edges_moved, run, model, round, at. Undo one with
// `python -m engine.dedup undo <merged>`.
MATCH (m:Belief)-[d:DUPLICATE_OF]->(k:Belief)
OPTIONAL MATCH (run:Run {id: d.run_id})
RETURN m.id AS merged, k.id AS kept, m.retract_reason AS reason,
       CASE WHEN k:In THEN 'IN' WHEN k:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END
         AS kept_truth,
       d.edges_moved AS edges_moved, d.run_id AS run, run.model AS model, d.round AS round,
       d.at AS at
ORDER BY at DESC, merged
