// name: undetermined
// Undetermined beliefs and the loops through outlists that cause them.
//
// No parameters.
//
// A belief is UNDETERMINED (stored :Out:Undetermined) when it sits on, or rests on, a loop of
// dependencies through at least one outlist (`a unless b`, `b unless a`), so no single answer
// exists. Rows: belief; why (on an odd loop, on an even loop: by the number of outlist steps
// in the shortest such loop through it; or rests on a loop); loop (that shortest loop, from
// the belief back to itself, each belief naming the next in a justification); rests_on (for a
// belief not on a loop, the undetermined beliefs on loops that it depends on).
MATCH (b:Undetermined)
OPTIONAL CALL (b) {
  MATCH p = ANY SHORTEST ((b) ((:Belief)<-[:SUPPORTS]-(:Justification)-[r:REQUIRES|UNLESS]->(:Undetermined))+ (b)
                           WHERE any(e IN r WHERE e:UNLESS))
  RETURN [n IN nodes(p) WHERE n:Belief | n.id] AS loop,
         size([e IN relationships(p) WHERE e:UNLESS]) AS negations
}
WITH collect({belief: b, loop: loop, negations: negations}) AS found
WITH found, [f IN found WHERE f.loop IS NOT NULL | f.belief] AS on_loops
UNWIND found AS f
WITH f, on_loops, f.belief AS b
CALL (b, f, on_loops) {
  WITH b WHERE f.loop IS NULL
  MATCH ANY SHORTEST (b) ((:Belief)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->(:Undetermined))+ (u)
  WHERE u IN on_loops
  WITH u ORDER BY u.id
  RETURN collect(u.id) AS rests_on
}
RETURN b.id AS belief,
       CASE WHEN f.loop IS NULL THEN 'rests on a loop'
            WHEN f.negations % 2 = 1 THEN 'on an odd loop'
            ELSE 'on an even loop' END AS why,
       coalesce(f.loop, []) AS loop, rests_on
ORDER BY belief
