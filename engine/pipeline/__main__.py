import sys

from engine.cli.pipeline import main

sys.exit(main())
