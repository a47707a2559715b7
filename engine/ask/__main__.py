import sys

from engine.cli.ask import main

sys.exit(main())
