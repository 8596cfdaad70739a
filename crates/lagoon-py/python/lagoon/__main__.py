"""`python -m lagoon ...`: the `lagoon` command."""

from .cli import main

main()
