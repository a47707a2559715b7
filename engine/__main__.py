import sys

from engine.resident.client import main

sys.exit(main())
