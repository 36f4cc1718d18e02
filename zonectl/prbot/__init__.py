"""The pull-request bot: one sticky comment (GitHub) or note (GitLab) per change request
carrying validate's verdict, the plan summary and migration estimate, and the full plan.
Standard library only; run as `python -m zonectl.prbot` (deploy/github/action)."""
