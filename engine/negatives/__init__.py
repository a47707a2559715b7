"""The negatives stage: a chat model says which beliefs state a problem (a bug, a risk, a
limitation, ...), so `list --negative` lists them and derive's GATE proposals find them
(ftl-reasons' `list-negative`), on the shared stage machinery (engine/stages/)."""
