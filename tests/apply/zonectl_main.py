"""`python tests/apply/zonectl_main.py ARGS...`: the zonectl CLI in a subprocess, for the
cases that kill it (same entry point as the installed `zonectl` script)."""

from __future__ import annotations

from zonectl.cli.app import main

if __name__ == "__main__":
    main()
