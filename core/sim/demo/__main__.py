"""`python -m core.sim.demo [DIR]`: regenerate the demo tenant's data files (see core.sim.demo.build)."""

from core.sim.demo.build import main

raise SystemExit(main())
