import sys

from engine.cli.forge import main

sys.exit(main())
