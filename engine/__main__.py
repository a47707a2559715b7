import sys

from engine.cli.resident.forwarding import main

sys.exit(main())
