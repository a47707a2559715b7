import sys

from engine.cli.forwarding import main

sys.exit(main())
