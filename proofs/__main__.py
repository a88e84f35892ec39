"""``python -m proofs``: print the claim table; exit 1 if any claim failed."""

from ._runner import main

raise SystemExit(main())
