import sys

from engine.cli.dedup import main

sys.exit(main())
