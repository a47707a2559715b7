import sys

from engine.cli.negatives import main

sys.exit(main())
