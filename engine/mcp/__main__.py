import sys

from engine.cli.mcp import main

sys.exit(main())
