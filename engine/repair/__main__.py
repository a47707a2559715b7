import sys

from engine.cli.repair import main

sys.exit(main())
