"""Users and their SCRAM credentials, as the sandbox's `--auth` mode knows them.

Roles are granted by name ("role@db"); what each role allows is in `auth.roles`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from zonectl.sandbox.auth.scram import Credentials, make_credentials


@dataclass(frozen=True)
class User:
    name: str
    db: str
    password: str
    # Each role is "role" (on the user's db), "role@db", or a (role, db) pair.
    roles: tuple[str | tuple[str, str], ...] = ()

    def role_names(self) -> tuple[str, ...]:
        """Roles as "role@db" strings (what `Session.roles` holds)."""
        out = []
        for role in self.roles:
            if isinstance(role, tuple):
                out.append(f"{role[0]}@{role[1]}")
            elif "@" in role:
                out.append(role)
            else:
                out.append(f"{role}@{self.db}")
        return tuple(out)


@dataclass
class AuthConfig:
    users: Sequence[User] = ()
    iterations_sha256: int = 15000  # scramIterationCount defaults (SCRAM-SHA-256 / SHA-1)
    iterations_sha1: int = 10000
    _creds: dict[tuple[str, str, str], Credentials] = field(default_factory=dict, repr=False)

    def find(self, name: str, db: str) -> User | None:
        return next((u for u in self.users if u.name == name and u.db == db), None)

    def credentials(self, user: User, mechanism: str) -> Credentials:
        key = (user.db, user.name, mechanism)
        if key not in self._creds:
            iterations = (
                self.iterations_sha256 if mechanism == "SCRAM-SHA-256" else self.iterations_sha1
            )
            self._creds[key] = make_credentials(user.name, user.password, mechanism, iterations)
        return self._creds[key]
