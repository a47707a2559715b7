import sys

from engine.cli.contradictions import main

sys.exit(main())
