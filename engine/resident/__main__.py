"""`python -m engine.resident --socket PATH`: the resident engine's process (started by
`eem serve start`, engine/resident/control.py)."""
import sys

from engine.resident.server import main

sys.exit(main())
