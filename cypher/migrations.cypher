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
