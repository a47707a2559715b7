// name: migrate_derive_runs
// Turns the DeriveRun nodes older versions wrote into Run nodes of stage 'derive'; returns how many.
// defines: nothing (provenance)
MATCH (r:DeriveRun)
SET r:Run, r.stage = coalesce(r.stage, 'derive')
REMOVE r:DeriveRun
RETURN count(r) AS runs

// name: migrate_derive_rounds
// Turns the DeriveRound nodes older versions wrote into Round nodes of stage 'derive'; returns how many.
// defines: nothing (provenance)
MATCH (d:DeriveRound)
SET d:Round, d.stage = coalesce(d.stage, 'derive')
REMOVE d:DeriveRound
RETURN count(d) AS rounds

// name: belief_text_analyzer
// The analyzer of the belief_text full-text index (`analyzer`), or no row when the index does not exist.
SHOW FULLTEXT INDEXES YIELD name, options
WHERE name = 'belief_text'
RETURN options.indexConfig['fulltext.analyzer'] AS analyzer

// name: drop_belief_text
// Drops the belief_text full-text index (an older one without stemming; init creates it anew).
DROP INDEX belief_text IF EXISTS

// name: await_belief_text
// Waits (up to $seconds) until the belief_text full-text index is online, so a search right after init finds every belief.
CALL db.awaitIndex('belief_text', $seconds)
