"""``python -m simulations.cli``: the ``gcul`` command line."""

from simulations.cli import main

raise SystemExit(main())
