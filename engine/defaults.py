"""What a verb takes when its caller says nothing, and the closed sets of choices it
accepts: in one leaf module (standard library only), so the faces' parsers offer what the
verbs take without loading the library, and neither can drift from the other."""

SEARCH_LIMIT = 10  # hits
SEARCH_MAX_LIMIT = 1000
SEARCH_MAX_DEPTH = 5  # justification steps from the hits
SEARCH_SORTS = ("relevance", "impact", "recent")
SEARCH_SORT_POOL = 100  # search --sort impact|recent: the best matches re-ordered
LOG_LIMIT = 50  # entries
BLOCKERS_LIMIT = 20  # groups and premises
COMPACT_BUDGET = 800  # tokens
CONTEXT_BUDGET = 3000  # tokens, for the material of a question
EMBED_BATCH = 256  # beliefs per embedding call and write transaction of the upkeep
LIST_SORTS = ("id", "depth", "impact", "updated")
DEFEATER_TYPES = ("invalid-inference", "over-generalizes", "duplicate-of", "superseded-by")
# what logically fails in a defeated justification (ftl-reasons' defeat_reason_type)
DEFEAT_REASON_TYPES = ("unsupported-conjunct", "over-generalizes", "false-causal-claim",
                       "internal-contradiction", "circular-reasoning", "missing-bridge",
                       "scope-mismatch")
WIKI_TOPICS = ("auto", "prefix", "clusters")
SOURCES_OUT_LIMIT = 20  # sources stale --retract goes ahead without --yes up to this many OUT
# Beliefs a part of an import in parts (engine/import_parts.py says why this many)
IMPORT_PART_SIZE = 20_000
