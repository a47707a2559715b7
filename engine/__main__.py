import sys

from engine.cli.tms import main

sys.exit(main())
