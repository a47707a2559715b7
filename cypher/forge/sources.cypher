// Forge: (:Source {path, sha256, size, forged_at, chunks}) nodes, the
// (:Belief)-[:FROM {lines}]->(:Source) edges of the premises drawn from them.

// name: forge_sources
// One record, `sources`: every Source node as a map {path, sha256, size, forged_at, chunks}, by path.
MATCH (s:Source)
WITH s ORDER BY s.path
RETURN collect(s {.path, .sha256, .size, .forged_at, .chunks}) AS sources

// name: forge_save_sources
// Creates or updates each of $rows ({path, sha256, size, forged_at, chunks}) by path; returns `saved`.
// defines: source $rows.path
UNWIND $rows AS row
MERGE (s:Source {path: row.path})
SET s.sha256 = row.sha256, s.size = row.size, s.forged_at = row.forged_at,
    s.chunks = row.chunks
RETURN count(s) AS saved

// name: forge_pin_to_sources
// Sets each of $rows ({id, source, source_hash, metadata, lines, at}) on its belief and replaces the belief's FROM edge by one to that source; returns `pinned`, the beliefs found with their source.
// defines: belief $rows.id
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
MATCH (s:Source {path: row.source})
CALL (b) {
  MATCH (b)-[old:FROM]->(:Source)
  DELETE old
}
SET b.source = row.source, b.source_hash = row.source_hash, b.metadata = row.metadata,
    b.updated_at = row.at
CREATE (b)-[:FROM {lines: row.lines}]->(s)
RETURN count(b) AS pinned

// name: forge_belief_ids_from_sources
// One record, `ids`: the ids of beliefs with a FROM edge to a Source whose path is in $paths.
MATCH (b:Belief)-[:FROM]->(s:Source)
WHERE s.path IN $paths
RETURN collect(DISTINCT b.id) AS ids

// name: sources_unpinned_ids
// One record, `ids`: the ids of beliefs that name a source but have no source hash and no FROM edge.
MATCH (b:Belief)
WHERE coalesce(b.source, '') <> '' AND coalesce(b.source_hash, '') = ''
  AND NOT (b)-[:FROM]->(:Source)
RETURN collect(b.id) AS ids

// name: sources_hashed_unpinned_ids
// One record, `ids`: the ids of beliefs that name a source and carry a source hash but have no FROM edge.
MATCH (b:Belief)
WHERE coalesce(b.source, '') <> '' AND coalesce(b.source_hash, '') <> ''
  AND NOT (b)-[:FROM]->(:Source)
RETURN collect(b.id) AS ids

// name: sources_set_hashes
// Sets source_hash and updated_at of each of $rows ({id, hash}) at $at; returns `found`.
// defines: belief $rows.id
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
SET b.source_hash = row.hash, b.updated_at = $at
RETURN count(b) AS found

// name: project_root
// One record, `root`: the memory's recorded root folder, or null.
OPTIONAL MATCH (n:NetworkInfo {key: 'network'})
RETURN n.root AS root

// name: save_project_root
// Records $root as the memory's root folder; returns nothing.
// defines: network
MERGE (n:NetworkInfo {key: 'network'})
SET n.root = $root

// name: network_repos
// One record: `repos`, the repos map kept from an imported file (JSON text, or null), and `agent_repos`, those of the imported agents' files (JSON texts, by namespace).
OPTIONAL MATCH (n:NetworkInfo {key: 'network'})
WITH n.repos AS repos
OPTIONAL MATCH (ns:Namespace) WHERE ns.repos IS NOT NULL
WITH repos, ns ORDER BY ns.name
RETURN repos, collect(ns.repos) AS agent_repos
