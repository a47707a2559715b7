// name: review_of
// Every review verdict on a belief's justifications, newest first, with the defeater each left and whether it is defeating now.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param id => 'auth-key-fetch-blocks-requests'
//
// No rows: review never judged the belief (or it has no justifications).
// Rows (newest first, then by justification): justification (1-based, in the belief's order),
// at (when judged), run, model, round, valid, sufficient, necessary, unnecessary (antecedents
// called not load-bearing), mode (the mode review said it should have), reason_type,
// missing_property, comment, action (valid, defeated, suggestion recorded, suggestion
// applied), suggestion, defeater (the premise review put in the outlist, if any),
// defeater_truth (IN: the justification is switched off; OUT: a person retracted it).
MATCH (b:Belief {id: $id})<-[:SUPPORTS]-(j:Justification)
WITH b, j ORDER BY j.seq
WITH b, collect(j) AS js
UNWIND range(1, size(js)) AS position
WITH position, js[position - 1] AS j
MATCH (run:Run)-[:HAS_ROUND]->(r:Round)-[v:REVIEWED]->(j)
OPTIONAL MATCH (d:Belief {id: v.defeater})
RETURN position AS justification, v.at AS at, run.id AS run, run.model AS model,
       r.n AS round, v.valid AS valid, v.sufficient AS sufficient, v.necessary AS necessary,
       v.unnecessary_antecedents AS unnecessary, v.mode AS mode,
       v.reason_type AS reason_type, v.missing_property AS missing_property,
       v.comment AS comment, v.action AS action, v.suggestion AS suggestion,
       d.id AS defeater,
       CASE WHEN d IS NULL THEN null WHEN d:In THEN 'IN' ELSE 'OUT' END AS defeater_truth
ORDER BY at DESC, run DESC, justification
