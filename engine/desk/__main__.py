from engine.desk.server import main

raise SystemExit(main())
