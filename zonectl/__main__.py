"""`python -m zonectl` runs the command-line interface."""

from zonectl.cli.app import main

main()
