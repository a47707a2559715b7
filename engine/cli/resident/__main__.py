"""`python -m engine.cli.resident --socket PATH`: the resident engine's process (started by
`python -m engine serve start`, engine/cli/resident/control.py)."""
import sys

from engine.cli.resident.server import main

sys.exit(main())
