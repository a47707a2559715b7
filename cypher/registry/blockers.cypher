// name: closed_gates
// OUT beliefs held OUT only by a closed gate: not retracted, not undetermined, with a justification whose antecedents are all IN and whose outlist holds IN beliefs and no undetermined one, none of them a belief that supersedes it or a defeater (a challenge, a defence, a review finding: those are answered with defend or retract, and a superseded belief is meant to stay OUT). Rows: id, text, seq (the justification's 1-based position), closers (the outlist's IN members, in written order), as one collected record.
MATCH (b:Out)<-[:SUPPORTS]-(j:Justification)
WHERE NOT b:Undetermined AND NOT coalesce(b.retracted, false)
  AND EXISTS { (j)-[:UNLESS]->(:In) }
  AND NOT EXISTS { (j)-[:UNLESS]->(:Undetermined) }
  AND NOT EXISTS { (j)-[:REQUIRES]->(a) WHERE NOT a:In }
  AND NOT EXISTS { (j)-[:UNLESS]->(g:In) WHERE g:Defeater OR EXISTS { (b)-[:SUPERSEDED_BY]->(g) } }
WITH b, j ORDER BY b.id, j.seq
RETURN collect({id: b.id, text: b.text,
                seq: COUNT { (b)<-[:SUPPORTS]-(k:Justification) WHERE k.seq < j.seq } + 1,
                closers: COLLECT { MATCH (j)-[r:UNLESS]->(o:In) RETURN o.id ORDER BY r.pos }})
       AS gated

// name: retracted_premises
// Retracted premises with how many beliefs rest on them (through antecedents, at any distance), most first, at most $limit: id, text, reason, retracted_at, resting. $visible_to null: all of them; a list of access tags: only premises, and resting beliefs, whose effective tags are all in it (a client's visibility set).
MATCH (p:Belief {retracted: true})
WHERE NOT EXISTS { (p)<-[:SUPPORTS]-(k:Justification) WHERE NOT coalesce(k.gate, false) }
  AND ($visible_to IS NULL OR all(t IN coalesce(p.effective_tags, []) WHERE t IN $visible_to))
CALL (p) {
  OPTIONAL MATCH ANY SHORTEST (p) ((x)<-[:REQUIRES]-(:Justification)-[:SUPPORTS]->(y))+ (d)
  WHERE d <> p
    AND ($visible_to IS NULL OR all(t IN coalesce(d.effective_tags, []) WHERE t IN $visible_to))
  RETURN count(DISTINCT d) AS resting
}
RETURN p.id AS id, p.text AS text, coalesce(p.retract_reason, '') AS reason,
       coalesce(p.retracted_at, '') AS retracted_at, resting
ORDER BY resting DESC, id
LIMIT $limit

