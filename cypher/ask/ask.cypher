// Ask: an answer's record in the graph. The round keeps the question and the answer; each
// cited belief gets a CITED edge from the round, holding the role and the label and text
// the belief had when it was cited, so a later change to either shows the answer is stale.

// name: ask_record_answer
// Sets the question, status and answer on the ask round ($run_id, $n) and a CITED {role, truth, text, at} edge to each cited belief of $citations; returns how many edges were made (no row when the round does not exist).
// defines: nothing (a round's record and its CITED edges)
MATCH (r:Round {run_id: $run_id, n: $n})
SET r.question = $question, r.status = $status, r.answer = $answer
WITH r
CALL (r) {
  UNWIND $citations AS c
  MATCH (b:Belief {id: c.id})
  CREATE (r)-[:CITED {role: c.role, truth: c.truth, text: c.text, at: $at}]->(b)
  RETURN count(b) AS cited
}
RETURN cited

// name: ask_stale_answers
// One record, `rows`: [run id, started_at, question, belief id, role, truth then, truth now, text changed] for every cited belief of an ask round whose label or text changed since it was cited, newest run first.
MATCH (run:Run {stage: 'ask'})-[:HAS_ROUND]->(r:Round)-[c:CITED]->(b:Belief)
WITH run, r, c, b,
     CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END AS now
WHERE now <> c.truth OR b.text <> c.text
WITH run, r, c, b, now ORDER BY run.started_at DESC, run.id, b.id
RETURN collect([run.id, run.started_at, coalesce(r.question, ''), b.id, c.role, c.truth, now,
                b.text <> c.text]) AS rows
