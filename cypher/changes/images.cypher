// Before-images: the definitions of the units a write is about to change, read the first
// time it touches each (adapters/neo4j/before_images.py; the form is engine/memory/images.py).

// name: images_belief
// One record, `images`: [id, [props as [key, value] of $props, labels, justifications [seq, kind, label, gate, [[pos, id]], [[pos, id, gate mark]]], from [path, lines], duplicate_of [id, props]]] of each belief of $keys that exists.
UNWIND $keys AS key
MATCH (b:Belief {id: key})
RETURN collect([key, [[k IN $props | [k, b[k]]], labels(b),
  [(b)<-[:SUPPORTS]-(j:Justification) | [j.seq, j.kind, j.label, j.gate,
     [(j)-[r:REQUIRES]->(a) | [r.pos, a.id]],
     [(j)-[r:UNLESS]->(o) | [r.pos, o.id, coalesce(r.gate, false)]]]],
  head([(b)-[f:FROM]->(s:Source) | [s.path, f.lines]]),
  head([(b)-[d:DUPLICATE_OF]->(k:Belief) | [k.id, properties(d)]])]]) AS images

// name: images_nogood
// One record, `images`: [id, {members, discovered, resolution}] of each nogood of $keys that exists.
UNWIND $keys AS key
MATCH (n:Nogood {id: key})
RETURN collect([key, {members: COLLECT { MATCH (n)-[r:MEMBER]->(m) RETURN m.id ORDER BY r.pos },
                      discovered: n.discovered, resolution: n.resolution}]) AS images

// name: images_supersession
// One record, `images`: [old id, {new, props}] of each SUPERSEDED_BY link leaving a belief of $keys.
UNWIND $keys AS key
MATCH (:Belief {id: key})-[s:SUPERSEDED_BY]->(n:Belief)
RETURN collect([key, {new: n.id, props: properties(s)}]) AS images

// name: images_source
// One record, `images`: [path, properties] of each Source of $keys that exists.
UNWIND $keys AS key
MATCH (s:Source {path: key})
RETURN collect([key, properties(s)]) AS images

// name: images_network
// One record, `images`: [key, properties] of the NetworkInfo node (meta, repos, root) when it exists.
UNWIND $keys AS key
MATCH (n:NetworkInfo {key: key})
RETURN collect([key, properties(n)]) AS images

// name: images_namespace
// One record, `images`: [name, properties] of each Namespace of $keys that exists.
UNWIND $keys AS key
MATCH (n:Namespace {name: key})
RETURN collect([key, properties(n)]) AS images

// name: mentions_of_merged
// One record, `ids`: the beliefs other than $kept with a justification naming $merged (what rewire_mentions changes).
MATCH (owner:Belief)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->(:Belief {id: $merged})
WHERE owner.id <> $kept
RETURN collect(DISTINCT owner.id) AS ids
