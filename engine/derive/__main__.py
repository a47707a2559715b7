import sys

from engine.derive.cli import main

sys.exit(main())
