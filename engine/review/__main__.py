import sys

from engine.cli.review import main

sys.exit(main())
