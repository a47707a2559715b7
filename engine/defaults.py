"""What a verb takes when its caller says nothing, and the closed sets of choices it
accepts: in one leaf module (standard library only), so the faces' parsers offer what the
verbs take without loading the library, and neither can drift from the other."""

SEARCH_LIMIT = 10  # hits
SEARCH_MAX_LIMIT = 1000
SEARCH_MAX_DEPTH = 5  # justification steps from the hits
LOG_LIMIT = 50  # entries
BLOCKERS_LIMIT = 20  # groups and premises
COMPACT_BUDGET = 800  # tokens
CONTEXT_BUDGET = 3000  # tokens, for the material of a question
LIST_SORTS = ("id", "depth", "impact", "updated")
DEFEATER_TYPES = ("invalid-inference", "over-generalizes", "duplicate-of", "superseded-by")
WIKI_TOPICS = ("auto", "prefix", "clusters")
SOURCES_OUT_LIMIT = 20  # sources stale --retract goes ahead without --yes up to this many OUT
# Beliefs a part of an import in parts (engine/import_parts.py says why this many)
IMPORT_PART_SIZE = 20_000
