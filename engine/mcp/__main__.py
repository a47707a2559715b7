import sys

from engine.mcp.server import main

sys.exit(main())
