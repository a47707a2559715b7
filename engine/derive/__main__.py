import sys

from engine.cli.derive import main

sys.exit(main())
